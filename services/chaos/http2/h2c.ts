// The h2c upgrade on the chaos port (RFC 7540 §3.2; RFC 9113 §3.1 deprecates
// it, yet curl --http2 on cleartext and nghttp -u still send it): an HTTP/1.1
// request asking `Upgrade: h2c`, with `HTTP2-Settings` (a base64url SETTINGS
// payload) and `Connection: Upgrade, HTTP2-Settings`. To an endpoint served
// over HTTP/2 only (the /h2/* lies) the server answers 101 and goes on as
// HTTP/2 (server.ts): our SETTINGS first, the request as stream 1 (half-closed
// remote), the client's preface read next. /h2/upgrade is served over HTTP/1.1
// and tells its own lies with what is read here. Anything else ignores the
// Upgrade (RFC 9110 §7.8 lets a server): its lie is HTTP/1.1's.
import type { Registry } from '../../../shared/registry/registry.js';
import { transportBit, transportMask } from '../../../shared/registry/transports.js';
import type { ParsedRequest } from '../parser.js';
import type { HeaderField } from './hpack.js';
import { settingError } from './reader.js';

/** The honest 101: the switch, nothing else (stream 1's HEADERS carry the lie's x-chaos-* fields). */
export const SWITCHING_TO_H2C = 'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n';

/** At most this many settings in HTTP2-Settings (curl sends 3; RFC 9113 §6.5.2 defines 6); the head's 16 KiB bound holds anyway. */
export const MAX_UPGRADE_SETTINGS = 32;
const MAX_SETTINGS_CHARS = Math.ceil((MAX_UPGRADE_SETTINGS * 6) / 3) * 4;
/** base64url (RFC 4648 §5); a SETTINGS payload (6 bytes a setting) never needs padding, and a stray `=` is tolerated. */
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** What an h2c upgrade brings: the client's settings and stream 1's request fields. */
export interface H2cUpgrade {
  readonly settings: ReadonlyMap<number, number>;
  readonly fields: HeaderField[];
}

const tokens = (value: string | undefined): string[] =>
  value === undefined ? [] : value.split(',').map((token) => token.trim().toLowerCase()).filter((token) => token !== '');

/** Whether the request asks for h2c: HTTP/1.1 (an HTTP/1.0 Upgrade is ignored, RFC 9110 §7.8), no TLS (h2c is cleartext's), `Upgrade` naming h2c. */
export function asksH2c(req: ParsedRequest): boolean {
  return req.version === '1.1' && !req.transport.tls && tokens(req.headers.get('upgrade')).includes('h2c');
}

/** Whether the server hands the request to HTTP/2: it asks for h2c, and its endpoint is served over HTTP/2 and not HTTP/1.1 (without TLS). */
export function upgradesToH2<C>(req: ParsedRequest, registry: Registry<C>): boolean {
  if (!asksH2c(req)) return false;
  const endpoint = registry.match(req.path)?.endpoint;
  if (endpoint === undefined) return false;
  const served = transportMask(endpoint);
  return (served & transportBit('h2', false)) !== 0 && (served & transportBit('http/1.1', false)) === 0;
}

/** The upgrade's settings and stream 1's fields, or why the request cannot be upgraded (a real 400: RFC 7540 §3.2.1 says not to upgrade). */
export function readH2cUpgrade(req: ParsedRequest): H2cUpgrade | string {
  const connection = tokens(req.headers.get('connection'));
  if (!connection.includes('upgrade') || !connection.includes('http2-settings')) {
    return 'an h2c upgrade names Upgrade and HTTP2-Settings in its Connection field (RFC 7540 §3.2.1)';
  }
  const value = req.headers.get('http2-settings');
  if (value === undefined) return 'an h2c upgrade carries an HTTP2-Settings field (RFC 7540 §3.2.1)';
  const settings = decodeHttp2Settings(value);
  return typeof settings === 'string' ? settings : { settings, fields: upgradeFields(req) };
}

/** HTTP2-Settings as the settings it carries (a SETTINGS payload, RFC 9113 §6.5.1), or why it is not one. */
export function decodeHttp2Settings(value: string): Map<number, number> | string {
  // Two fields reach us joined with ", " (parser-types.ts): base64url has no comma.
  if (value.includes(',')) return 'more than one HTTP2-Settings field (RFC 7540 §3.2.1)';
  if (value.length > MAX_SETTINGS_CHARS + 2) return `HTTP2-Settings carries more than ${MAX_UPGRADE_SETTINGS} settings`;
  if (!BASE64URL.test(value) || value.replace(/=+$/, '').length % 4 === 1) return 'HTTP2-Settings is not base64url (RFC 4648 §5)';
  const payload = Buffer.from(value, 'base64url');
  if (payload.length % 6 !== 0) return `HTTP2-Settings decodes to ${payload.length} bytes, not a SETTINGS payload (6 bytes a setting)`;
  const settings = new Map<number, number>();
  for (let at = 0; at < payload.length; at += 6) {
    const id = payload.readUInt16BE(at);
    const setting = payload.readUInt32BE(at + 2);
    const wrong = settingError(id, setting);
    if (wrong !== undefined) return `HTTP2-Settings: ${wrong[1]} (RFC 9113 §6.5.2)`;
    settings.set(id, setting);
  }
  return settings;
}

/** HTTP/1.1's connection management and the upgrade's own fields: not carried onto stream 1 (RFC 9113 §8.2.2). */
const NOT_CARRIED = new Set(['connection', 'upgrade', 'http2-settings', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'host']);

/** The upgrade request as stream 1's fields: the pseudo-headers from its request line and Host, then its other fields. */
function upgradeFields(req: ParsedRequest): HeaderField[] {
  const fields: HeaderField[] = [[':method', req.method], [':scheme', 'http'], [':path', req.query === '' ? req.path : `${req.path}?${req.query}`]];
  if (req.host !== undefined) fields.push([':authority', req.host]);
  for (const [name, value] of req.headers) {
    if (!NOT_CARRIED.has(name) && (name !== 'te' || value === 'trailers')) fields.push([name, value]);
  }
  return fields;
}
