// Twin content, crawler-files family: robots.txt, ai.txt, llms.txt and
// sitemap.xml, and every control file encoded once a day. The files are pure
// functions of the public URLs and the day; every link they hold points at
// the control host and answers 200; the bots host builds its chaotic twins
// from the same pieces.
import type { Config } from '../../config/config.js';
import { adsTxt, gpcJson, humansTxt, securityPage, securityTxt } from '../site-trust.js';
import { appleAppSiteAssociation, assetLinks, webManifest } from '../app-linking.js';
import { atprotoDid, didDocument, nodeinfo20, nodeinfoLinks } from '../federated-identity.js';
import { AI_CRAWLERS, DISALLOWED_PREFIX, FILE_PATHS, escapeXml, perConfigDaily, prettyJson, type Day, type Site } from './site.js';


/** What sitemapPaths reads of a registry. */
export interface SitemapSource {
  readonly endpoints: readonly { readonly path: string; readonly sitemap?: boolean }[];
}

const sitemapCache = new WeakMap<SitemapSource, readonly string[]>();

/**
 * The pages a host's sitemap.xml lists, derived from its registry: the
 * catalog, then every endpoint marked `sitemap: true` (documents, not the
 * sitemap itself, APIs or images), in FILE_PATHS order, then any other marked
 * path in registry order. Computed once per registry.
 */
export function sitemapPaths(registry: SitemapSource): readonly string[] {
  let paths = sitemapCache.get(registry);
  if (paths === undefined) {
    const marked = registry.endpoints.filter((e) => e.sitemap === true).map((e) => e.path);
    const known: readonly string[] = Object.values(FILE_PATHS);
    paths = Object.freeze([
      FILE_PATHS.catalog,
      ...known.filter((path) => marked.includes(path)),
      ...marked.filter((path) => !known.includes(path)),
    ]);
    sitemapCache.set(registry, paths);
  }
  return paths;
}

/** One robots.txt group per AI crawler, then everyone else: all allowed but /infinite/. */
export function robotsGroups(agents: readonly string[]): string {
  return [...agents, '*'].map((agent) => `User-agent: ${agent}\nAllow: /\nDisallow: ${DISALLOWED_PREFIX}\n`).join('\n');
}

export function robotsTxt(site: Site): string {
  return (
    `# robots.txt of ${site.control}\n` +
    `# Every crawler may fetch everything except ${DISALLOWED_PREFIX} (generated pages without end);\n` +
    `# the major AI crawlers are allowed by name.\n\n` +
    `${robotsGroups(AI_CRAWLERS)}\nSitemap: ${site.control}${FILE_PATHS.sitemap}\n`
  );
}

/** ai.txt in robots.txt syntax (User-Agent groups), with the same policy as robots.txt. */
export function aiTxt(site: Site): string {
  const groups = [...AI_CRAWLERS, '*'].map((agent) => `User-Agent: ${agent}\nAllow: /\nDisallow: ${DISALLOWED_PREFIX}\n`).join('\n');
  return (
    `# ai.txt of ${site.control}\n` +
    `# AI crawlers and training: allowed everywhere except ${DISALLOWED_PREFIX}, as in robots.txt.\n\n${groups}`
  );
}

export function llmsTxt(site: Site): string {
  const link = (title: string, path: string, note: string) => `- [${title}](${site.control}${path}): ${note}`;
  return [
    '# Chaos Endpoint Service: control host',
    '',
    '> Well-formed twins of HTTP endpoints that misbehave on purpose, for testing clients, caches, crawlers and agents. ' +
      'Every file here parses cleanly; its chaotic twin is on the bots host at the same path.',
    '',
    '## Files',
    '',
    link('Catalog', FILE_PATHS.catalog, 'every endpoint of this host (HTML, or JSON with Accept: application/json)'),
    link('robots.txt', FILE_PATHS.robots, `everything allowed except ${DISALLOWED_PREFIX}; AI crawlers named`),
    link('Sitemap', FILE_PATHS.sitemap, "this host's files"),
    link('ai.txt', FILE_PATHS.ai, 'the same policy for AI crawlers'),
    link('humans.txt', FILE_PATHS.humans, 'who maintains this'),
    link('security.txt', FILE_PATHS.security, 'where to report a real defect'),
    link('NodeInfo', FILE_PATHS.nodeinfo20, 'software and usage'),
    '',
  ].join('\n');
}

export function sitemapXml(site: Site, day: Day, paths: readonly string[]): string {
  const urls = paths.map((path) => `  <url>\n    <loc>${escapeXml(site.control + path)}</loc>\n    <lastmod>${day.iso}</lastmod>\n  </url>\n`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}</urlset>\n`;
}

/** Every control body that depends only on the URLs and the day, encoded once per day. */
export const controlFiles = perConfigDaily((site, day) => encodeAll({
  robots: robotsTxt(site),
  ai: aiTxt(site),
  security: securityTxt(site, day),
  securityPage: securityPage(site),
  ads: adsTxt(site),
  humans: humansTxt(site, day),
  llms: llmsTxt(site),
  atprotoDid: atprotoDid(site),
  didJson: prettyJson(didDocument(site)),
  nodeinfo: prettyJson(nodeinfoLinks(site)),
  nodeinfo20: prettyJson(nodeinfo20('control')),
  aasa: prettyJson(appleAppSiteAssociation()),
  assetlinks: prettyJson(assetLinks()),
  manifest: prettyJson(webManifest(site, 'control')),
  gpc: prettyJson(gpcJson(day)),
}));
export type ControlFiles = ReturnType<typeof controlFiles>;

const sitemapBodies = new WeakMap<SitemapSource, (config: Config) => Buffer>();

/** The control sitemap.xml of a registry's pages, encoded once per config and day. */
export function controlSitemap(registry: SitemapSource): (config: Config) => Buffer {
  let bodies = sitemapBodies.get(registry);
  if (bodies === undefined) {
    bodies = perConfigDaily((site, day) => Buffer.from(sitemapXml(site, day, sitemapPaths(registry)), 'utf8'));
    sitemapBodies.set(registry, bodies);
  }
  return bodies;
}

function encodeAll<K extends string>(texts: Readonly<Record<K, string>>): Readonly<Record<K, Buffer>> {
  const out = {} as Record<K, Buffer>;
  for (const key of Object.keys(texts) as K[]) out[key] = Buffer.from(texts[key], 'utf8');
  return out;
}

export const TEXT = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json';
