// Twin content, auth family (tokens): /jwt. Tokens are signed with the
// published test key (test-key.ts); the chaos tokens are fixed, so their bytes
// are the same on every call and every replica (only the issuer follows the
// configuration).
import { createHmac, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import type { Config } from '../../config/config.js';
import { oneOf } from '../../primitives/params.js';
import { JWK_KID, LINKED_PATHS } from '../discovery.js';
import { TEST_RSA_PRIVATE_KEY_PEM, TEST_RSA_PUBLIC_KEY_PEM } from './test-key.js';

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
