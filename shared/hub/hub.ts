// The hub (DESIGN §1: `localhost` behind the front door, served by the control
// process): one catalog of all three hosts, each section linking to the host
// that serves it. Built once at start-up from the registries, like each
// host's own catalog.
import type { Catalog, CatalogBodies } from '../catalog/catalog.js';
import { renderHubHtml } from '../catalog/catalog-page.js';
import type { Config } from '../config/config.js';
import { tlsCatalog, type TlsCatalog } from './tls-section.js';

export interface HubCatalog {
  readonly hub: string;
  readonly banner: string;
  readonly hosts: readonly Catalog[];
  /** The TLS modes, when the deployment serves them (TLS_DIR). */
  readonly tls?: TlsCatalog;
}

/** The hub's page and JSON from the three hosts' catalogs (buildCatalog of each registry). */
export function hubBodies(catalogs: readonly Catalog[], config: Config): CatalogBodies {
  const total = catalogs.reduce((n, c) => n + c.endpoint_count, 0);
  const banner = `${total} endpoints on ${catalogs.length} hosts: ${catalogs.map((c) => `${c.endpoint_count} on ${c.host}`).join(', ')}.`;
  const tls = tlsCatalog(config);
  const hub: HubCatalog = { hub: config.urls.hub, banner, hosts: catalogs, ...(tls ? { tls: tls.json } : {}) };
  return { json: Buffer.from(`${JSON.stringify(hub, null, 2)}\n`), html: Buffer.from(renderHubHtml(catalogs, banner, config.urls, tls?.html)) };
}
