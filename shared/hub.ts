// The hub (DESIGN §1: `localhost` behind the front door, served by the control
// process): one catalog of all three hosts, each section linking to the host
// that serves it. Built once at start-up from the registries, like each
// host's own catalog.
import { catalogSections, escapeHtml, type Catalog, type CatalogBodies } from './catalog.js';
import type { Config } from './config.js';

export interface HubCatalog {
  readonly hub: string;
  readonly banner: string;
  readonly hosts: readonly Catalog[];
}

/** The hub's page and JSON from the three hosts' catalogs (buildCatalog of each registry). */
export function hubBodies(catalogs: readonly Catalog[], config: Config): CatalogBodies {
  const total = catalogs.reduce((n, c) => n + c.endpoint_count, 0);
  const banner = `${total} endpoints on ${catalogs.length} hosts: ${catalogs.map((c) => `${c.endpoint_count} on ${c.host}`).join(', ')}.`;
  const hub: HubCatalog = { hub: config.urls.hub, banner, hosts: catalogs };
  const sections = catalogs
    .map(
      (c) =>
        `<section id="${escapeHtml(c.host)}">\n<h1>${escapeHtml(c.host)} host — <a href="${escapeHtml(c.url)}/">${escapeHtml(c.url)}</a></h1>\n` +
        `<p class="banner">${escapeHtml(c.banner)}</p>\n${catalogSections(c, c.url)}\n</section>`,
    )
    .join('\n');
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Chaos Endpoint Service — hub</title></head>
<body>
<h1>Chaos Endpoint Service</h1>
<p class="banner">${escapeHtml(banner)}</p>
<p>Every chaos endpoint has a well-formed twin on the control host; bots serves crawler files that lie. Ask with <code>Accept: application/json</code> for this page as JSON.</p>
<p>See a chaos answer beside its twin's, byte for byte: <a class="compare" href="/compare">/compare</a>.</p>
<nav>${catalogs.map((c) => `<a href="#${escapeHtml(c.host)}">${escapeHtml(c.host)}</a>`).join(' · ')}</nav>
${sections}
</body>
</html>
`;
  return { json: Buffer.from(`${JSON.stringify(hub, null, 2)}\n`), html: Buffer.from(html) };
}
