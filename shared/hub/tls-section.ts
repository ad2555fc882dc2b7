// The hub catalog's `tls` category (docs/tls.md): one entry per TLS mode, its
// host, the defect and what a correct client does, beside the published
// files. Whether this runtime serves each mode is in /tls/hosts.json (the
// self-check runs after the catalog is built).
import type { Config } from '../config/config.js';
import { escapeHtml } from '../primitives/html.js';
import { TLS_MODE_INFO, TLS_MODES, tlsHostOf } from '../tls/modes.js';

/** The hub catalog's category of the TLS hosts: modes are hosts, not registry endpoints, so it is not in CATEGORIES. */
export const TLS_CATEGORY = 'tls';

export interface TlsCatalog {
  readonly category: typeof TLS_CATEGORY;
  readonly hosts_json: string;
  readonly root: string;
  readonly modes: readonly { readonly mode: string; readonly url: string; readonly defect: string; readonly expect: string }[];
}

/** The catalog's tls category, as JSON and as an HTML section; undefined without TLS_DIR. */
export function tlsCatalog(config: Config): { readonly json: TlsCatalog; readonly html: string } | undefined {
  if (config.tls.dir === undefined) return undefined;
  const { base, publicPort } = config.tls;
  const port = publicPort === 443 ? '' : `:${publicPort}`;
  const json: TlsCatalog = {
    category: TLS_CATEGORY,
    hosts_json: `${config.urls.hub}/tls/hosts.json`,
    root: `${config.urls.hub}/tls/root.pem`,
    modes: TLS_MODES.map((mode) => ({ mode, url: `https://${tlsHostOf(mode, base)}${port}/`, defect: TLS_MODE_INFO[mode].defect, expect: TLS_MODE_INFO[mode].expect })),
  };
  const entries = json.modes.map(
    (m) =>
      `<article class="ep" id="tls-${escapeHtml(m.mode)}"><h3><code>${escapeHtml(m.mode)}</code> <a href="${escapeHtml(m.url)}">${escapeHtml(m.url)}</a></h3>` +
      `<p class="sum">${escapeHtml(m.defect)}; a correct client: ${escapeHtml(m.expect)}</p></article>`,
  );
  const html =
    `<section class="host" id="tls">\n<h1>TLS chaos <small>one host per certificate or handshake defect</small></h1>\n` +
    `<p class="about">Trust the test root for one command only, never in a system store: <a href="${escapeHtml(json.root)}">${escapeHtml(json.root)}</a>; every mode, machine-readable, with what curl, openssl, Node and Python say: <a href="${escapeHtml(json.hosts_json)}">${escapeHtml(json.hosts_json)}</a>.</p>\n` +
    `<section class="cat" id="tls-modes" data-category="tls">\n<h2>tls <span class="n" data-total="${json.modes.length}">${json.modes.length}</span></h2>\n${entries.join('\n')}\n</section>\n</section>`;
  return { json, html };
}
