// The header lines of a control or bots endpoint's responses that do not
// depend on the request, built once per endpoint by HttpService (linesFor).
import { counterpartUrl } from '../catalog/catalog.js';
import type { HostName, PublicUrls } from '../config/config.js';
import { chaosBaseHeaders, controlHeaders, type Described, type HeaderList } from '../primitives/headers.js';
import type { AnyEndpoint } from '../registry/registry.js';

/**
 * An endpoint's own lines on this host, built once: `fixed` is the whole list,
 * or (control, a templated twin path) `twinPrefix` is what the concrete path
 * asked for is appended to.
 */
export interface EndpointLines {
  readonly fixed: HeaderList | undefined;
  readonly twinPrefix: string | undefined;
  readonly twin: string | null;
}

/** The lines of an endpoint's responses on `host`, as far as they do not depend on the request (see HttpService.linesFor). */
export function endpointLines(host: Exclude<HostName, 'chaos'>, endpoint: Described & Pick<AnyEndpoint<unknown>, 'path' | 'counterpart'>, urls: PublicUrls): EndpointLines {
  if (host !== 'control') return { fixed: chaosBaseHeaders(endpoint), twinPrefix: undefined, twin: null };
  const twin = counterpartUrl(host, endpoint, urls);
  if (!endpoint.path.includes('{')) return { fixed: controlHeaders(twin), twinPrefix: undefined, twin };
  // A templated twin names the concrete path: counterpartUrl appends it to the twin host's URL.
  const prefix = counterpartUrl(host, endpoint, urls, '');
  if (prefix !== null && prefix !== twin) return { fixed: undefined, twinPrefix: prefix, twin };
  return { fixed: controlHeaders(twin), twinPrefix: undefined, twin };
}
