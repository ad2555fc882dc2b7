// Twin content, redirects family: /redirect-chain, /redirect-loop,
// /redirect-kinds (and its target), /redirect-location (and its final page),
// /redirect-cross-host. The parameters, Locations and bodies both hosts
// derive from, so a twin serves the same resource and only the lie differs.
import type { Config } from '../config/config.js';
import { jsonBody } from '../primitives/json.js';
import { HOP_COOKIE } from '../primitives/exam-param.js';
import { bool, int, oneOf } from '../primitives/params.js';

// ---- /redirect-chain ------------------------------------------------------

export const REDIRECT_MAX = 20;

/** Where hop `n` (n ≥ 1) points: a relative reference, exactly as the spec writes it. */
export function redirectLocation(n: number): string {
  return `/redirect-chain?n=${n - 1}`;
}

export function redirectHopBody(n: number): Buffer {
  return jsonBody({ endpoint: '/redirect-chain', hops_remaining: n, location: redirectLocation(n) });
}

export const REDIRECT_FINAL_BODY = jsonBody({
  endpoint: '/redirect-chain',
  message: 'redirect chain resolved',
  hops_completed: true,
});

// ---- /redirect-loop -------------------------------------------------------

export const LOOP_MAX = 10;

export const LOOP_PARAMS = {
  n: int({ min: 1, max: LOOP_MAX, default: 2, description: 'URLs in the cycle (chaos) or hops before the 200 (control)' }),
  at: int({ min: 0, max: LOOP_MAX, default: 0, description: 'position in the cycle; the Locations set it' }),
};

/** The URL of position `at` of a loop of `n`: relative, as /redirect-chain's. */
export function loopLocation(n: number, at: number): string {
  return `/redirect-loop?n=${n}&at=${at}`;
}

export function loopHopBody(n: number, at: number, location: string, resolves: boolean): Buffer {
  return jsonBody({ endpoint: '/redirect-loop', n, at, location, resolves });
}

export function loopFinalBody(n: number): Buffer {
  return jsonBody({ endpoint: '/redirect-loop', n, at: n, message: 'redirect chain resolved', resolves: true });
}

// ---- /redirect-kinds ------------------------------------------------------

export const REDIRECT_CODES = ['301', '302', '303', '307', '308'] as const;
export type RedirectCode = (typeof REDIRECT_CODES)[number];

export const KINDS_TARGET_PATH = '/redirect-kinds/target';
/** The most bytes of a request body the target reports (the rest is counted). */
export const KINDS_BODY_MAX = 1024;

/** The methods both redirect and target answer; HEAD rides along with GET. */
export const KINDS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const KINDS_PARAMS = {
  code: oneOf(REDIRECT_CODES, { default: '302', description: 'redirect status sent' }),
};

export const KINDS_TARGET_PARAMS = {
  code: int({ min: 300, max: 399, description: 'the redirect that led here (set by the Location), reported as is' }),
};

/** What RFC 9110 §15.4 lets a client do with the method on each code. */
const METHOD_RULE: Readonly<Record<RedirectCode, string>> = {
  '301': 'a user agent may change POST to GET (historical behaviour, RFC 9110 §15.4.2)',
  '302': 'a user agent may change POST to GET (historical behaviour, RFC 9110 §15.4.3)',
  '303': 'the follow-up is a GET (HEAD stays HEAD), body dropped (RFC 9110 §15.4.4)',
  '307': 'method and body must be kept (RFC 9110 §15.4.8)',
  '308': 'method and body must be kept (RFC 9110 §15.4.9)',
};

export function kindsLocation(code: RedirectCode): string {
  return `${KINDS_TARGET_PATH}?code=${code}`;
}

export function kindsBody(code: RedirectCode, method: string): Buffer {
  return jsonBody({ endpoint: '/redirect-kinds', code: Number(code), method, location: kindsLocation(code), method_rule: METHOD_RULE[code] });
}

/** The target's report: what arrived after the client followed (or did not rewrite) the redirect. */
export function kindsTargetBody(
  method: string,
  code: number | undefined,
  contentType: string | undefined,
  body: Buffer,
  bodyBytes: number,
): Buffer {
  return jsonBody({
    endpoint: KINDS_TARGET_PATH,
    method,
    redirected_by: code ?? null,
    content_type: contentType ?? null,
    body_bytes: bodyBytes,
    body: body.subarray(0, KINDS_BODY_MAX).toString('utf8'),
    body_truncated: bodyBytes > KINDS_BODY_MAX,
  });
}

// ---- /redirect-location ---------------------------------------------------

export const LOCATION_MODES = [
  'relative',
  'protocol-relative',
  'dot-segments',
  'missing',
  'malformed',
  'non-http',
  'fragment',
  'absolute-other-host',
] as const;
export type LocationMode = (typeof LOCATION_MODES)[number];

export const LOCATION_SCHEMES = ['ftp', 'javascript'] as const;
export type LocationScheme = (typeof LOCATION_SCHEMES)[number];

export const LOCATION_FINAL_PATH = '/redirect-location/final';

export const LOCATION_PARAMS = {
  mode: oneOf(LOCATION_MODES, { default: 'relative', description: 'what the Location says' }),
  scheme: oneOf(LOCATION_SCHEMES, { default: 'ftp', description: 'the scheme of mode=non-http' }),
};

export const LOCATION_FINAL_PARAMS = {
  from: oneOf(LOCATION_MODES, { default: 'relative', description: 'the mode whose redirect led here' }),
};

/** Where each mode's redirect leads once resolved (none for missing, malformed, non-http). */
export function locationFinal(mode: LocationMode): string {
  return `${LOCATION_FINAL_PATH}?from=${mode}`;
}

/**
 * The chaos Location of each mode, exactly as sent; undefined = no Location
 * line. Hosts come from the configured public URLs.
 */
export function chaosLocation(mode: LocationMode, scheme: LocationScheme, config: Config): string | undefined {
  const chaos = new URL(config.urls.base);
  switch (mode) {
    case 'relative':
      // A relative-path reference (no leading slash): resolved against /redirect-location it is the final page.
      return `redirect-location/final?from=relative`;
    case 'protocol-relative':
      return `//${chaos.host}${locationFinal(mode)}`;
    case 'dot-segments':
      return `/redirect-location/./a/b/../../final?from=dot-segments`;
    case 'missing':
      return undefined;
    case 'malformed':
      // A port above 65535, a raw space, and CR LF percent-escaped (a raw CR or LF would end the header line).
      return `http://${chaos.hostname}:99999/redirect location/final?from=malformed&x=%0D%0A`;
    case 'non-http':
      return scheme === 'ftp' ? `ftp://${chaos.hostname}${LOCATION_FINAL_PATH}` : 'javascript:void(0)';
    case 'fragment':
      return `${locationFinal(mode)}#resolved`;
    case 'absolute-other-host':
      return `${config.urls.control}${locationFinal(mode)}`;
  }
}

/** What a client must make of each chaos Location, as the body states it. */
const LOCATION_NOTE: Readonly<Record<LocationMode, string>> = {
  relative: 'a relative-path reference: resolved against this URL it is /redirect-location/final',
  'protocol-relative': "a network-path reference: it keeps the request's scheme",
  'dot-segments': 'dot segments: removed on resolution (RFC 3986 §5.2.4), it is /redirect-location/final',
  missing: 'a 302 with no Location: there is nothing to follow',
  malformed: 'not a URI: a port above 65535, a raw space, escaped CR LF',
  'non-http': 'a scheme other than http(s): a client must not follow it blindly',
  fragment: 'a fragment: the resolved URL keeps it (RFC 9110 §10.2.2); it is never sent',
  'absolute-other-host': 'an absolute URL on another host (the control host)',
};

/** The control twin's note, the same for every mode. */
export const LOCATION_WELL_FORMED = 'a well-formed path-absolute reference to the final page';

export function locationBody(mode: LocationMode, location: string | undefined, note: string = LOCATION_NOTE[mode]): Buffer {
  return jsonBody({ endpoint: '/redirect-location', mode, location: location ?? null, note });
}

export function locationFinalBody(from: LocationMode): Buffer {
  return jsonBody({ endpoint: LOCATION_FINAL_PATH, from, message: 'redirect resolved' });
}

// ---- /redirect-cross-host -------------------------------------------------

export const CROSS_MAX = 10;

/** Chaos: the chain crosses from chaos to control `hops` times (2·hops − 1 redirects) and resolves on control. */
export const CROSS_CHAOS_PARAMS = {
  hops: int({ min: 1, max: CROSS_MAX, default: 3, description: 'crossings from chaos to control still to come' }),
  alternate: bool({ default: false, description: 'accepted for parity with the control hop; ignored' }),
  cookie: bool({ default: false, description: 'the chaos hop sets a host-only cookie, and goes to the control host by a name other than the chaos host\'s' }),
};

/**
 * The host-only cookie of `/redirect-cross-host?cookie=true`'s chaos hop: no
 * Domain, so it belongs to the chaos host's name alone. A client exam records
 * whether a request carried it (never the value; docs/exam.md).
 */
export const CROSS_COOKIE = `${HOP_COOKIE}=1; Path=/; HttpOnly; SameSite=Lax`;

/** Control: `alternate` (set by the chaos Location) sends the hop back to chaos; otherwise the chain stays on control. */
export const CROSS_CONTROL_PARAMS = {
  hops: int({ min: 0, max: CROSS_MAX, default: 3, description: 'hops still to come; 0 is the final 200' }),
  alternate: bool({ default: false, description: 'set by the chaos Location: the hop goes back to chaos' }),
};

/** A hop to the control host; it goes back to chaos while hops remain. */
export function crossToControl(config: Config, hops: number): string {
  return `${config.urls.control}/redirect-cross-host?hops=${hops}&alternate=true`;
}

/**
 * The control host by a name other than the chaos host's, for the cookie hop:
 * cookies are kept per host name, not per port (RFC 6265 §8.5), so where
 * chaos and control share a name (the embedded default's 127.0.0.1) the hop
 * goes to the hub's name, another name of the control process.
 */
export function controlByOtherName(config: Config): string {
  const chaos = new URL(config.urls.base).hostname;
  return [config.urls.control, config.urls.hub].find((url) => new URL(url).hostname !== chaos) ?? config.urls.control;
}

/** The cookie hop: to the control host by another name; its control hop resolves or goes back to chaos as any. */
export function crossCookieToControl(config: Config, hops: number): string {
  return `${controlByOtherName(config)}/redirect-cross-host?hops=${hops}&alternate=true`;
}

export function crossToChaos(config: Config, hops: number): string {
  return `${config.urls.base}/redirect-cross-host?hops=${hops}`;
}

/** The twin's own chain: it stays on the control host. */
export function crossOnControl(config: Config, hops: number): string {
  return `${config.urls.control}/redirect-cross-host?hops=${hops}`;
}

export function crossHopBody(host: 'chaos' | 'control', hops: number, location: string): Buffer {
  return jsonBody({ endpoint: '/redirect-cross-host', host, hops, location });
}

export function crossFinalBody(): Buffer {
  return jsonBody({ endpoint: '/redirect-cross-host', host: 'control', hops: 0, message: 'redirect chain resolved' });
}
