// What the crawler, app-linking, federated-identity and site-trust files of
// both hosts are made of: the public URLs and identities they name, the paths
// they link, the day they are dated, and a per-config cache so every body is
// built once (a day, for dated ones). The control and bots hosts both import
// it: each chaotic bots file is the control file with one documented thing
// broken.
import type { Config } from '../../config/config.js';
import { rngFromSeed, seededBytes } from '../../primitives/seed.js';

export interface Site {
  /** Public base URLs, no trailing slash. */
  readonly control: string;
  readonly bots: string;
  /** Host names without port (acct: and at:// identifiers carry no port). */
  readonly controlHostname: string;
  readonly botsHostname: string;
  /** did:web identifiers of the two hosts (port percent-encoded, as did:web says). */
  readonly controlDid: string;
  readonly botsDid: string;
}

/** did:web of an origin: `did:web:` + the host, with `:` (port) encoded as %3A. */
export function didWeb(url: string): string {
  return `did:web:${encodeURIComponent(new URL(url).host.toLowerCase())}`;
}

const sites = new WeakMap<Config, Site>();
export function siteOf(config: Config): Site {
  let site = sites.get(config);
  if (!site) {
    const { control, bots } = config.urls;
    site = Object.freeze({
      control,
      bots,
      controlHostname: new URL(control).hostname,
      botsHostname: new URL(bots).hostname,
      controlDid: didWeb(control),
      botsDid: didWeb(bots),
    });
    sites.set(config, site);
  }
  return site;
}

export interface Day {
  /** Days since the epoch (UTC). */
  readonly index: number;
  /** Midnight UTC of the day, in ms. */
  readonly midnightMs: number;
  /** YYYY-MM-DD */
  readonly iso: string;
}

const DAY_MS = 86_400_000;

export function dayOf(nowMs: number = Date.now()): Day {
  const index = Math.floor(nowMs / DAY_MS);
  const midnightMs = index * DAY_MS;
  return { index, midnightMs, iso: new Date(midnightMs).toISOString().slice(0, 10) };
}

/** RFC 3339 timestamp at whole seconds, as security.txt writes Expires. */
export function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * Memoises `build` per config, rebuilt when the UTC day changes: the files are
 * generated, so they are dated the day they are served (a future Expires, a
 * recent lastmod) and otherwise identical byte for byte.
 */
export function perConfigDaily<T>(build: (site: Site, day: Day) => T): (config: Config) => T {
  const cache = new WeakMap<Config, { readonly index: number; readonly value: T }>();
  return (config) => {
    const index = Math.floor(Date.now() / DAY_MS);
    const hit = cache.get(config);
    if (hit && hit.index === index) return hit.value;
    const value = build(siteOf(config), dayOf(index * DAY_MS));
    cache.set(config, { index, value });
    return value;
  };
}

/** The major AI crawlers, by the user-agent token each one matches in robots.txt. */
export const AI_CRAWLERS = [
  'GPTBot', 'ChatGPT-User', 'OAI-SearchBot', 'ClaudeBot', 'Claude-User', 'Claude-SearchBot',
  'Google-Extended', 'PerplexityBot', 'Perplexity-User', 'CCBot', 'Applebot-Extended',
  'Meta-ExternalAgent', 'Amazonbot', 'Bytespider', 'cohere-ai', 'DuckAssistBot', 'MistralAI-User',
] as const;

/** The paths robots.txt and ai.txt keep crawlers out of: endless generated pages. */
export const DISALLOWED_PREFIX = '/infinite/';

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

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

/** Pretty JSON with a trailing newline, as the files are read by people too. */
export function prettyJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
