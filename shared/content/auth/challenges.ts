// Twin content, auth family (challenges): /auth-challenge, /auth-required,
// /auth-loop and the Basic credentials their twins check.
import { timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config/config.js';
import { oneOf, str } from '../../primitives/params.js';
import { seededBytes } from '../../primitives/seed.js';
import { idKey } from '../../store/types.js';

// --- Basic credentials shared by the auth twins ------------------------------

/** True when `authorization` is Basic user:password exactly (compared in constant time). */
export function basicMatches(authorization: string | undefined, user: string, password: string): boolean {
  const m = /^\s*basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(authorization ?? '');
  if (!m) return false;
  const got = Buffer.from(Buffer.from(m[1] as string, 'base64').toString('utf8'));
  const want = Buffer.from(`${user}:${password}`);
  return got.length === want.length && timingSafeEqual(got, want);
}

// --- /auth-challenge: malformed WWW-Authenticate (RFC 9110 §11) --------------

export const CHALLENGE_MODES = ['unbalanced-quotes', 'unknown-scheme', 'contradictory', 'missing-realm', 'split-header'] as const;
export type ChallengeMode = (typeof CHALLENGE_MODES)[number];
export const CHALLENGE_PARAMS = {
  mode: oneOf(CHALLENGE_MODES, { default: 'unbalanced-quotes', description: 'which malformation (the twin sends one well-formed challenge)' }),
};
export const CHALLENGE_REALM = 'auth-challenge';
/** The twin's one challenge. */
export const VALID_CHALLENGE = `Basic realm="${CHALLENGE_REALM}", charset="UTF-8"`;

/** The WWW-Authenticate lines of each chaos mode, in order (one array item per header line). */
export const CHALLENGE_LINES: Readonly<Record<ChallengeMode, readonly string[]>> = {
  // The realm's quoted-string never closes: a parser reads the rest of the line as the realm.
  'unbalanced-quotes': [`Basic realm="${CHALLENGE_REALM}, charset="UTF-8"`],
  'unknown-scheme': [`Chaos realm="${CHALLENGE_REALM}", proof="sha-3000"`],
  // Three challenges that cannot all be meant: two Basic realms, and a Bearer error for a token never sent.
  contradictory: [
    `Basic realm="${CHALLENGE_REALM}-users"`,
    `Basic realm="${CHALLENGE_REALM}-admins", charset="ISO-8859-1"`,
    `Bearer realm="${CHALLENGE_REALM}", error="insufficient_scope"`,
  ],
  // RFC 7617 §2: realm is required for Basic.
  'missing-realm': ['Basic charset="UTF-8"'],
  // One Digest challenge cut in two lines: read one by one, the first lacks its nonce and the second has no scheme.
  'split-header': [`Digest realm="${CHALLENGE_REALM}", qop="auth",`, 'nonce="7f3a91c2e4b5d6a8", algorithm=SHA-256'],
};

// --- /auth-required: the four challenge schemes ----------------------------

export const AUTH_SCHEMES = ['basic', 'bearer', 'digest', 'none'] as const;
export type AuthScheme = (typeof AUTH_SCHEMES)[number];
export const REALM_MAX = 64;

export const AUTH_PARAMS = {
  scheme: oneOf(AUTH_SCHEMES, { default: 'basic', description: 'challenge scheme; none = a 401 without WWW-Authenticate' }),
  // Longer input is cut after sanitising, never refused: the raw bound is the request line's.
  realm: str({
    maxLength: 16_384, // above the request line's own bound (8–16 KiB), so never the one that refuses
    description: 'default: the service domain; only letters, digits, . _ - and space are kept; cut to 64',
  }),
};

/** Keeps ASCII letters, digits, `.`, `_`, `-` and space, then cuts to 64 characters. */
export function sanitizeRealm(raw: string): string {
  return raw.replace(/[^A-Za-z0-9._ -]/g, '').slice(0, REALM_MAX);
}

const defaultRealms = new WeakMap<Config, string>();
/** The service's domain name: the hub's host name, sanitised (computed once per config). */
export function defaultRealm(config: Config): string {
  let realm = defaultRealms.get(config);
  if (realm === undefined) {
    realm = sanitizeRealm(new URL(config.urls.hub).hostname);
    defaultRealms.set(config, realm);
  }
  return realm;
}

export function realmFor(config: Config, raw: string | undefined): string {
  return raw === undefined ? defaultRealm(config) : sanitizeRealm(raw);
}

/**
 * Digest nonce and opaque: a fixed function of the realm, so a challenge is
 * reproducible. This is a test service; a real server must use fresh nonces.
 */
export function digestNonce(realm: string): { nonce: string; opaque: string } {
  const bytes = seededBytes(`auth-required:digest:${realm}`, 32);
  return { nonce: bytes.toString('hex', 0, 16), opaque: bytes.toString('hex', 16, 32) };
}

/** Realms are sanitised to characters that need no escaping inside quotes. */
export function basicChallenge(realm: string): string {
  return `Basic realm="${realm}"`;
}

export function bearerChallenge(realm: string): string {
  return `Bearer realm="${realm}"`;
}

export function digestChallenge(realm: string, algorithm: 'SHA-256' | 'MD5'): string {
  const { nonce, opaque } = digestNonce(realm);
  return `Digest realm="${realm}", qop="auth", algorithm=${algorithm}, nonce="${nonce}", opaque="${opaque}"`;
}

export function authBody(scheme: AuthScheme, realm: string, authenticated: boolean, note: string): Record<string, unknown> {
  return { endpoint: '/auth-required', authenticated, scheme, realm, note };
}

// --- /auth-loop ------------------------------------------------------------

/** A client's loop count restarts this long after its first call. */
export const AUTH_LOOP_WINDOW_MS = 10 * 60_000;
export const AUTH_LOOP_REALM = 'auth-loop';
export const authLoopKey = (client: string): string => idKey('auth-loop', client);
export const authLoopRealm = (attempt: number): string => `${AUTH_LOOP_REALM}-${attempt}`;
