// The well-formed files of the control host, as pure functions of the public
// URLs and the day. Every link they hold points at this host and answers 200;
// the bots host builds its chaotic twins from the same pieces.
import { escapeHtml } from '../../primitives/html.js';
import type { Config } from '../../config/config.js';
import { oneOf, str } from '../../primitives/params.js';
import {
  AI_CRAWLERS, ANDROID_PACKAGE, APPLE_APP_ID, CERT_FINGERPRINT, DISALLOWED_PREFIX, NODEINFO_20_REL, SOFTWARE,
  escapeXml, perConfigDaily, prettyJson, rfc3339, type Day, type Site,
} from './site.js';
import { iconPng } from './png.js';

/** Icon sizes the manifest declares (Chromium's install criteria name 192 and 512). */
export const ICON_SIZES = ['192', '512'] as const;
export type IconSize = (typeof ICON_SIZES)[number];
export const ICONS: Readonly<Record<IconSize, Buffer>> = { 192: iconPng(192), 512: iconPng(512) };
/** The control icon's parameters; the bots twin's counterpart link keeps them. */
export const ICON_PARAMS = { size: oneOf(ICON_SIZES, { default: '512', description: 'edge in pixels' }) };

/** security.txt expires this long after the day it is served (RFC 9116: less than a year). */
export const SECURITY_TXT_LIFETIME_DAYS = 180;

/** Paths of the control files, in the order the sitemap and llms.txt list them. */
export const FILE_PATHS = {
  catalog: '/',
  llms: '/llms.txt',
  humans: '/humans.txt',
  robots: '/robots.txt',
  sitemap: '/sitemap.xml',
  ai: '/.well-known/ai.txt',
  security: '/.well-known/security.txt',
  securityPage: '/security',
  ads: '/ads.txt',
  gpc: '/.well-known/gpc.json',
  atprotoDid: '/.well-known/atproto-did',
  didJson: '/.well-known/did.json',
  webfinger: '/.well-known/webfinger',
  nodeinfo: '/.well-known/nodeinfo',
  nodeinfo20: '/nodeinfo/2.0',
  aasa: '/.well-known/apple-app-site-association',
  assetlinks: '/.well-known/assetlinks.json',
  manifest: '/manifest.webmanifest',
  icon: '/icon.png',
} as const;

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

export function securityTxt(site: Site, day: Day): string {
  const expires = day.midnightMs + SECURITY_TXT_LIFETIME_DAYS * 86_400_000;
  return (
    `# Security contact of ${site.control}\n` +
    `# The chaos and bots hosts misbehave on purpose (documented in their catalogs); report anything else.\n` +
    `Contact: ${site.control}${FILE_PATHS.securityPage}\n` +
    `Expires: ${rfc3339(expires)}\n` +
    `Preferred-Languages: en\n` +
    `Canonical: ${site.control}${FILE_PATHS.security}\n`
  );
}

/** The page security.txt names as Contact, so the Contact URL resolves. */
export function securityPage(site: Site): string {
  const txt = escapeHtml(`${site.control}${FILE_PATHS.security}`);
  const catalog = escapeHtml(`${site.control}/`);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Security contact</title></head>
<body>
<h1>Security contact</h1>
<p>This page is the Contact named in <a href="${txt}">security.txt</a>.</p>
<p>The chaos and bots hosts misbehave on purpose: every lie they tell is documented in the
<a href="${catalog}">catalog</a> and marked with <code>X-Chaos-*</code> response headers.
A response that misbehaves without such a header is a real defect: report it to the operator of this deployment.</p>
</body>
</html>
`;
}

/** The example.com seller account of the single authorised-seller record. */
export const ADS_SELLER_ID = 'chaos-control-0001';
export function adsTxt(site: Site): string {
  return `# ads.txt of ${site.control}\n# One authorised seller, sold directly.\nexample.com, ${ADS_SELLER_ID}, DIRECT\n`;
}

export function humansDate(day: Day): string {
  return day.iso.replace(/-/g, '/');
}

export function humansTxt(site: Site, day: Day): string {
  return (
    `/* TEAM */\n` +
    `Maintainer: The Chaos Endpoint Service maintainers\n` +
    `Contact: ${site.control}${FILE_PATHS.securityPage}\n` +
    `Site: ${site.control}/\n\n` +
    `/* THANKS */\n` +
    `Name: everyone who reports a lie that is not documented\n\n` +
    `/* SITE */\n` +
    `Last update: ${humansDate(day)}\n` +
    `Language: English\n` +
    `Standards: HTTP/1.1, RFC 9309, RFC 9116, sitemaps.org 0.9, NodeInfo 2.0\n` +
    `Components: Node.js, TypeScript, pure-rand, pino, prom-client\n`
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

/** atproto handle resolution: the DID alone, one line, no trailing newline. */
export function atprotoDid(site: Site): string {
  return site.controlDid;
}

/** The did:web document the DID resolves to; its handle is this host's name (both directions agree). */
export function didDocument(site: Site): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: site.controlDid,
    alsoKnownAs: [`at://${site.controlHostname}`],
  };
}

export function nodeinfoLinks(site: Site): { links: { rel: string; href: string }[] } {
  return { links: [{ rel: NODEINFO_20_REL, href: `${site.control}${FILE_PATHS.nodeinfo20}` }] };
}

/**
 * How each host names and describes itself (nodeinfo metadata, manifest): the
 * bots host serves the same documents about itself, so apart from a mode's lie
 * its files describe the bots host, not the control twins.
 */
export const HOST_IDENTITY = {
  control: {
    name: 'Chaos Endpoint Service: control host',
    shortName: 'Chaos control',
    nodeName: 'Chaos Endpoint Service (control host)',
    description: 'Well-formed twins of endpoints that misbehave on purpose',
  },
  bots: {
    name: 'Chaos Endpoint Service: bots host',
    shortName: 'Chaos bots',
    nodeName: 'Chaos Endpoint Service (bots host)',
    description: 'Crawler, app-linking and federated files that misbehave on purpose, one documented lie per mode',
  },
} as const;
export type FileHost = keyof typeof HOST_IDENTITY;

/** NodeInfo 2.0; the schema needs at least one protocol, and this family of files is ActivityPub's. */
export function nodeinfo20(host: FileHost): Record<string, unknown> {
  const me = HOST_IDENTITY[host];
  return {
    version: '2.0',
    software: { name: SOFTWARE.name, version: SOFTWARE.version },
    protocols: ['activitypub'],
    services: { inbound: [], outbound: [] },
    openRegistrations: false,
    usage: { users: { total: 0, activeHalfyear: 0, activeMonth: 0 }, localPosts: 0, localComments: 0 },
    metadata: { nodeName: me.nodeName, nodeDescription: me.description },
  };
}

export function appleAppSiteAssociation(): Record<string, unknown> {
  return {
    applinks: {
      details: [
        {
          appIDs: [APPLE_APP_ID],
          components: [
            { '/': '/', comment: 'the catalog' },
            { '/': `${DISALLOWED_PREFIX}*`, comment: 'generated pages open in the app' },
          ],
        },
      ],
    },
    webcredentials: { apps: [APPLE_APP_ID] },
  };
}

export const HANDLE_ALL_URLS = 'delegate_permission/common.handle_all_urls';
export function assetLinks(): Record<string, unknown>[] {
  return [
    {
      relation: [HANDLE_ALL_URLS],
      target: { namespace: 'android_app', package_name: ANDROID_PACKAGE, sha256_cert_fingerprints: [CERT_FINGERPRINT] },
    },
  ];
}

export function iconEntries(base: string): Record<string, string>[] {
  return ICON_SIZES.map((size) => ({ src: `${base}${FILE_PATHS.icon}?size=${size}`, sizes: `${size}x${size}`, type: 'image/png', purpose: 'any' }));
}

/**
 * The host's web app manifest. The icons are always the control host's: the
 * bots host's own icon.png is chaotic in every mode, so a bots manifest that
 * pointed at it would tell a second lie.
 */
export function webManifest(site: Site, host: FileHost): Record<string, unknown> {
  const me = HOST_IDENTITY[host];
  const root = `${site[host]}/`;
  return {
    id: root,
    name: me.name,
    short_name: me.shortName,
    description: me.description,
    start_url: root,
    scope: root,
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#0b3d91',
    lang: 'en',
    icons: iconEntries(site.control),
  };
}

export function gpcJson(day: Day): Record<string, unknown> {
  return { gpc: true, lastUpdate: day.iso };
}

/** The one account webfinger knows on a host: acct:<name>@<hostname>. */
/** The control WebFinger's parameters; the bots twin's counterpart link keeps them. */
export const WEBFINGER_PARAMS = {
  resource: str({ required: true, minLength: 1, maxLength: 512, description: 'the URI asked about (RFC 7033: missing → 400)' }),
  rel: str({ minLength: 1, maxLength: 512, description: 'keep only links with this rel' }),
};

export function webfingerAccount(name: string, hostname: string): string {
  return `acct:${name}@${hostname}`;
}

export function webfingerJrd(site: Site): Record<string, unknown> {
  return {
    subject: webfingerAccount('control', site.controlHostname),
    aliases: [`${site.control}/`],
    links: [
      { rel: 'http://webfinger.net/rel/profile-page', type: 'text/plain', href: `${site.control}${FILE_PATHS.humans}` },
      { rel: NODEINFO_20_REL, href: `${site.control}${FILE_PATHS.nodeinfo20}` },
    ],
  };
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
