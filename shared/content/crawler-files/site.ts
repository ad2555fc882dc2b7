// What the crawler, app-linking and federated files of both hosts are made
// of: the public URLs and identities they name, the day they are dated, and a
// per-config cache so every body is built once (a day, for dated ones).
// The control and bots hosts both import it (shared content): each chaotic
// bots file is the control file with one documented thing broken.
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

/** The app the app-linking files associate with (example.com's reverse DNS: owned by nobody). */
export const APPLE_TEAM_ID = 'CHAOSTEAM1';
export const APP_BUNDLE_ID = 'com.example.chaos';
export const APPLE_APP_ID = `${APPLE_TEAM_ID}.${APP_BUNDLE_ID}`;
export const ANDROID_PACKAGE = 'com.example.chaos';

/** Colon-separated upper-case hex, as Digital Asset Links writes certificate fingerprints. */
export function colonHex(bytes: Buffer): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
}
/** SHA-256 fingerprint of the (fictional) signing certificate: 32 seeded bytes. */
export const CERT_FINGERPRINT = colonHex(seededBytes(`assetlinks:${ANDROID_PACKAGE}`, 32));

/** What nodeinfo reports; the interface is at version 1.0.0 (SPEC §9). */
export const SOFTWARE = { name: 'chaos-endpoint-service', version: '1.0.0' } as const;
export const NODEINFO_20_REL = 'http://nodeinfo.diaspora.software/ns/schema/2.0';
export const NODEINFO_20_PROFILE = `application/json; profile="${NODEINFO_20_REL}#"`;

/** A did:plc-shaped identifier (24 base32 characters) that no PLC directory knows. */
export function fakePlcDid(seed: string): string {
  const rng = rngFromSeed(seed);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let id = '';
  for (let i = 0; i < 24; i++) id += alphabet[rng.intBetween(0, 31)];
  return `did:plc:${id}`;
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

/** Pretty JSON with a trailing newline, as the files are read by people too. */
export function prettyJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
