import { createHash, timingSafeEqual } from 'node:crypto';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import {
  AUTH_PARAMS, authBody, basicChallenge, bearerChallenge, digestChallenge, digestNonce, realmFor, type AuthScheme,
} from '../../../../shared/content/auth/index.js';

/** The documented test credentials (public on purpose: this is a test service). */
export const CONTROL_USER = 'chaos';
export const CONTROL_PASSWORD = 'control';
export const CONTROL_BEARER_TOKEN = 'control-token';

const DIGEST_ALGORITHMS = { 'SHA-256': 'sha256', MD5: 'md5' } as const;

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A 401 must carry a challenge (RFC 9110 §15.5.2): scheme=none falls back to Basic here. */
function challenges(scheme: AuthScheme, realm: string): HeaderList {
  switch (scheme) {
    case 'basic':
    case 'none':
      return [['WWW-Authenticate', basicChallenge(realm)]];
    case 'bearer':
      return [['WWW-Authenticate', bearerChallenge(realm)]];
    case 'digest':
      // SHA-256 first (RFC 7616 §3.7), MD5 for older clients.
      return [
        ['WWW-Authenticate', digestChallenge(realm, 'SHA-256')],
        ['WWW-Authenticate', digestChallenge(realm, 'MD5')],
      ];
  }
}

/** Splits `Scheme rest` with a case-insensitive scheme. */
function splitAuthorization(value: string): { scheme: string; rest: string } {
  const trimmed = value.trim();
  const space = trimmed.indexOf(' ');
  return space === -1
    ? { scheme: trimmed.toLowerCase(), rest: '' }
    : { scheme: trimmed.slice(0, space).toLowerCase(), rest: trimmed.slice(space + 1).trim() };
}

function validBasic(rest: string): boolean {
  if (!/^[A-Za-z0-9+/]+=*$/.test(rest)) return false;
  return same(Buffer.from(rest, 'base64').toString('utf8'), `${CONTROL_USER}:${CONTROL_PASSWORD}`);
}

/** auth-param list: name=token or name="quoted string" (RFC 9110 §11.2). */
function authParams(rest: string): Map<string, string> {
  const params = new Map<string, string>();
  const re = /\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(?:,|$)/y;
  let m: RegExpExecArray | null;
  while (re.lastIndex < rest.length && (m = re.exec(rest)) !== null) {
    params.set((m[1] as string).toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? ''));
  }
  return params;
}

/** RFC 7616 with qop=auth (or RFC 2069 without qop), SHA-256 or MD5, our fixed nonce. */
function validDigest(rest: string, realm: string, method: string, target: string): boolean {
  const p = authParams(rest);
  const algorithm = p.get('algorithm') ?? 'MD5';
  if (!(algorithm in DIGEST_ALGORITHMS)) return false;
  const hash = (text: string): string => createHash(DIGEST_ALGORITHMS[algorithm as keyof typeof DIGEST_ALGORITHMS]).update(text).digest('hex');
  const { nonce } = digestNonce(realm);
  if (p.get('username') !== CONTROL_USER || p.get('realm') !== realm || p.get('nonce') !== nonce || p.get('uri') !== target) return false;
  const response = p.get('response');
  if (response === undefined) return false;
  const ha1 = hash(`${CONTROL_USER}:${realm}:${CONTROL_PASSWORD}`);
  const ha2 = hash(`${method}:${target}`);
  const qop = p.get('qop');
  let expected: string;
  if (qop === undefined) expected = hash(`${ha1}:${nonce}:${ha2}`);
  else if (qop === 'auth' && p.has('nc') && p.has('cnonce')) expected = hash(`${ha1}:${nonce}:${p.get('nc')}:${p.get('cnonce')}:${qop}:${ha2}`);
  else return false;
  return same(response.toLowerCase(), expected);
}

function authenticated(scheme: AuthScheme, header: string, realm: string, method: string, target: string): boolean {
  const presented = splitAuthorization(header);
  switch (scheme) {
    case 'basic':
    case 'none':
      return presented.scheme === 'basic' && validBasic(presented.rest);
    case 'bearer':
      return presented.scheme === 'bearer' && same(presented.rest, CONTROL_BEARER_TOKEN);
    case 'digest':
      return presented.scheme === 'digest' && validDigest(presented.rest, realm, method, target);
  }
}

export default defineControlEndpoint({
  id: 'auth-required',
  path: '/auth-required',
  category: 'auth',
  summary: `Twin of /auth-required: a correct challenge that accepts only the test user (Basic ${CONTROL_USER}:${CONTROL_PASSWORD}, Bearer ${CONTROL_BEARER_TOKEN}, Digest ${CONTROL_USER}:${CONTROL_PASSWORD}); 401 otherwise`,
  params: AUTH_PARAMS,
  headers: ['WWW-Authenticate'],
  docs: {
    modeParam: 'scheme',
    random: 'seeded',
  },
  handle(ctx, { scheme, realm }) {
    const applied = realmFor(ctx.config, realm);
    const header = ctx.req.headers.authorization;
    if (header !== undefined && authenticated(scheme, header, applied, ctx.req.method ?? 'GET', ctx.req.url ?? '/')) {
      ctx.send(200, 'application/json', jsonBody(authBody(scheme, applied, true, `authenticated as ${CONTROL_USER}`)));
      return;
    }
    const note = header === undefined ? 'credentials required' : 'invalid credentials';
    ctx.send(401, 'application/json', jsonBody(authBody(scheme, applied, false, note)), undefined, challenges(scheme, applied));
  },
});
