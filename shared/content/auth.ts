// Twin content, auth family: /jwt, /auth-challenge, /auth-required, /auth-loop
// and the chaos /.well-known/jwks.json. Tokens are signed with the published test key
// (auth-test-key.ts); the chaos tokens are fixed, so their bytes are the same
// on every call and every replica (only the issuer follows the configuration).
import { createHash, createHmac, createPrivateKey, createPublicKey, sign, timingSafeEqual, verify } from 'node:crypto';
import type { Config } from '../config/config.js';
import { oneOf, str } from '../primitives/params.js';
import { seededBytes } from '../primitives/seed.js';
import { idKey } from '../store/types.js';
import { TEST_RSA_PRIVATE_KEY_PEM, TEST_RSA_PUBLIC_KEY_PEM } from './auth-test-key.js';
import { JWK_KID, jwkSet, LINKED_PATHS } from './discovery.js';

type Json = Record<string, unknown>;

const PRIVATE_KEY = createPrivateKey(TEST_RSA_PRIVATE_KEY_PEM);
const PUBLIC_KEY = createPublicKey(TEST_RSA_PUBLIC_KEY_PEM);

// --- JWT (RFC 7519, JWS RFC 7515) -------------------------------------------

export const JWT_MODES = ['alg-none', 'alg-confusion', 'kid-traversal', 'expired', 'not-yet-valid', 'wrong-audience'] as const;
export type JwtMode = (typeof JWT_MODES)[number];
export const JWT_PARAMS = {
  mode: oneOf(JWT_MODES, { default: 'alg-none', description: 'which token a validator must refuse (the chaos host accepts it)' }),
};

/** The realm of the Bearer challenges of /jwt on both hosts. */
export const JWT_REALM = 'jwt';
/** The kid of kid-traversal: a path, so a validator that reads the key from disk gets /dev/null (empty). */
export const TRAVERSAL_KID = '../../../../../../../dev/null';
/** Fixed times of the chaos tokens (seconds since the epoch). */
const ISSUED_AT = 1_700_000_000; // 2023-11-14
const FAR_FUTURE = 4_102_444_800; // 2100-01-01
const WRONG_AUDIENCE = 'https://api.example.com/';
/** How long a token the control host issues lives, and the clock skew it allows. */
export const JWT_LIFETIME_S = 300;
export const JWT_LEEWAY_S = 60;

export const jwtIssuer = (config: Config): string => config.urls.control;
export const jwtAudience = (config: Config): string => `${config.urls.control}/jwt`;

const b64 = (value: Json): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function rs256(input: string): string {
  return sign('sha256', Buffer.from(input), PRIVATE_KEY).toString('base64url');
}

function hs256(input: string, key: Buffer | string): string {
  return createHmac('sha256', key).update(input).digest('base64url');
}

export interface IssuedToken {
  readonly token: string;
  readonly header: Json;
  readonly claims: Json;
}

function rsToken(header: Json, claims: Json): IssuedToken {
  const input = `${b64(header)}.${b64(claims)}`;
  return { token: `${input}.${rs256(input)}`, header, claims };
}

/** What each chaos token gets wrong, in the words of the check that must refuse it. */
export const JWT_DEFECTS: Readonly<Record<JwtMode, string>> = {
  'alg-none': 'alg "none": no signature at all',
  'alg-confusion': 'alg HS256 with the published RSA public key (PEM) as the HMAC secret',
  'kid-traversal': `kid is a path (${TRAVERSAL_KID}), HS256 with an empty secret (what the file holds)`,
  expired: 'exp is in 2023',
  'not-yet-valid': 'nbf is in 2100',
  'wrong-audience': `aud is ${WRONG_AUDIENCE}`,
};

/** The token of a chaos mode: correct in every respect but its defect. */
export function chaosToken(mode: JwtMode, config: Config): IssuedToken {
  const claims: Json = { iss: jwtIssuer(config), sub: 'chaos-test-user', aud: jwtAudience(config), iat: ISSUED_AT, nbf: ISSUED_AT, exp: FAR_FUTURE };
  switch (mode) {
    case 'alg-none': {
      const header = { alg: 'none', typ: 'JWT', kid: JWK_KID };
      return { token: `${b64(header)}.${b64(claims)}.`, header, claims };
    }
    case 'alg-confusion': {
      const header = { alg: 'HS256', typ: 'JWT', kid: JWK_KID };
      const input = `${b64(header)}.${b64(claims)}`;
      return { token: `${input}.${hs256(input, TEST_RSA_PUBLIC_KEY_PEM)}`, header, claims };
    }
    case 'kid-traversal': {
      const header = { alg: 'HS256', typ: 'JWT', kid: TRAVERSAL_KID };
      const input = `${b64(header)}.${b64(claims)}`;
      return { token: `${input}.${hs256(input, Buffer.alloc(0))}`, header, claims };
    }
    case 'expired':
      return rsToken({ alg: 'RS256', typ: 'JWT', kid: JWK_KID }, { ...claims, exp: ISSUED_AT + 3600 });
    case 'not-yet-valid':
      return rsToken({ alg: 'RS256', typ: 'JWT', kid: JWK_KID }, { ...claims, nbf: FAR_FUTURE, exp: FAR_FUTURE + 3600 });
    case 'wrong-audience':
      return rsToken({ alg: 'RS256', typ: 'JWT', kid: JWK_KID }, { ...claims, aud: WRONG_AUDIENCE });
  }
}

/** A valid token from the control host: RS256, the JWKS kid, live for JWT_LIFETIME_S. */
export function controlToken(config: Config, nowS: number): IssuedToken {
  const claims = { iss: jwtIssuer(config), sub: 'control-test-user', aud: jwtAudience(config), iat: nowS, nbf: nowS, exp: nowS + JWT_LIFETIME_S };
  return rsToken({ alg: 'RS256', typ: 'JWT', kid: JWK_KID }, claims);
}

/** The checks a correct validator applies, in the order the control host applies them. */
export const JWT_CHECKS: readonly string[] = [
  'format: three base64url parts; header and payload are JSON objects',
  `kid: names a key of ${LINKED_PATHS.jwks}, compared as a string (never a path or URL to fetch)`,
  'alg: RS256 only, fixed by the validator (never none, never HS256 with the RSA key, never taken from the token)',
  'signature: RSASSA-PKCS1-v1_5 SHA-256 over header.payload with that key',
  `exp: required, and now < exp + ${JWT_LEEWAY_S} s`,
  `nbf: when present, nbf ≤ now + ${JWT_LEEWAY_S} s`,
  'iss: the control host URL',
  'aud: this resource (<control URL>/jwt)',
];

/** The decoded parts of a token, or undefined when it is not three parts with JSON object header and payload. */
export function decodeJwt(token: string): { header: Json; claims: Json; input: string; signature: string } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p, i) => !/^[A-Za-z0-9_-]*$/.test(p) || (i < 2 && p === ''))) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0] as string, 'base64url').toString('utf8')) as unknown;
    const claims = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as unknown;
    if (!isObject(header) || !isObject(claims)) return undefined;
    return { header, claims, input: `${parts[0]}.${parts[1]}`, signature: parts[2] as string };
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The control host's validation: undefined when valid, else the error_description of the first failed check. */
export function jwtRefusal(token: string, config: Config, nowS: number): string | undefined {
  const decoded = decodeJwt(token);
  if (!decoded) return 'malformed token';
  const { header, claims, input, signature } = decoded;
  if (header.kid !== JWK_KID) return 'kid does not name a key of the JWKS';
  // The alg is echoed into a header: only token characters of it, and not many.
  if (header.alg !== 'RS256') return `alg ${String(header.alg).replace(/[^A-Za-z0-9._-]/g, '').slice(0, 32)} is not accepted (RS256 only)`;
  if (!verify('sha256', Buffer.from(input), PUBLIC_KEY, Buffer.from(signature, 'base64url'))) return 'signature does not verify';
  if (typeof claims.exp !== 'number') return 'exp is missing';
  if (nowS >= claims.exp + JWT_LEEWAY_S) return 'token expired';
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > nowS + JWT_LEEWAY_S)) return 'token not yet valid';
  if (claims.iss !== jwtIssuer(config)) return 'wrong issuer';
  const aud = claims.aud;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (!audiences.includes(jwtAudience(config))) return 'wrong audience';
  return undefined;
}

/** The token of `Authorization: Bearer <token>`, undefined for another scheme or none. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return m?.[1];
}

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

// --- chaos /.well-known/jwks.json -------------------------------------------

export const JWKS_MODES = ['kid-mismatch', 'rotating', 'wrong-use'] as const;
export type JwksMode = (typeof JWKS_MODES)[number];
export const JWKS_PARAMS = {
  mode: oneOf(JWKS_MODES, { default: 'kid-mismatch', description: 'which lie (the twin publishes the signing key as it is)' }),
};
export const JWKS_MISMATCHED_KID = 'chaos-signing-key-1';
export const JWKS_ROTATION_WINDOW_MS = 10 * 60_000;
export const jwksRotationKey = (client: string): string => idKey('jwks-rotation', client);

function thumbprint(n: string, e: string): string {
  return createHash('sha256').update(JSON.stringify({ e, kty: 'RSA', n })).digest('base64url');
}

/**
 * The n-th rotated key: a 2048-bit modulus seeded by the rotation count, so
 * the same count gives the same key (no private half exists, and none is needed:
 * no token is ever signed with it). Its kid is its RFC 7638 thumbprint.
 */
export function rotatedJwk(rotation: number): Json {
  const n = seededBytes(`jwks-rotation-${rotation}`, 256);
  n[0] = (n[0] as number) | 0x80;
  n[255] = (n[255] as number) | 0x01;
  const nText = n.toString('base64url');
  return { kty: 'RSA', use: 'sig', alg: 'RS256', kid: thumbprint(nText, 'AQAB'), n: nText, e: 'AQAB' };
}

/** The chaos JWK Set of a mode (`rotation` counts the client's calls; used by rotating only). */
export function chaosJwkSet(mode: JwksMode, rotation: number): Json {
  const [key] = jwkSet().keys as Json[];
  switch (mode) {
    case 'kid-mismatch':
      return { keys: [{ ...key, kid: JWKS_MISMATCHED_KID }] };
    case 'rotating':
      return { keys: [rotatedJwk(rotation)] };
    case 'wrong-use':
      // RFC 7517 §4.2: "enc" keys are for encryption; a validator must not verify signatures with it.
      return { keys: [{ ...key, use: 'enc' }] };
  }
}
