// The PROXY protocol version 2 header (haproxy's doc/proxy-protocol.txt §2.2),
// read before the HTTP parser on a connection from a trusted proxy: the chaos
// host sits behind HAProxy in `mode tcp` with `send-proxy-v2` (DESIGN §1), so
// the client's address arrives here rather than in a header; so do the TLS
// listeners (chaos's, and control's for its twins) behind the front door's
// passthrough. Pure: bytes in, a decision out; the connection feeds it until it decides.
//
// Only what HAProxy sends is believed: PROXY over TCP/IPv4 or TCP/IPv6 gives
// the source address; LOCAL (its health checks), UNSPEC and the valid
// combinations we do not use (UDP, UNIX) keep the socket's address, as the
// spec asks of a receiver that does not implement them; TLVs are skipped once
// their framing is checked. Anything else is refused, as early as the first
// byte that cannot belong to a header, so garbage never waits for more.
import { addressFromBytes } from './trust.js';

/** The 12 bytes every version 2 header starts with. */
export const PROXY_V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

/** Signature, version/command, family/transport and the 16-bit length. */
export const PROXY_V2_FIXED_BYTES = 16;

/**
 * The largest length field accepted (address block and TLVs). The field
 * allows 65,535; HAProxy sends 12 or 36 bytes plus the few TLVs it is told to
 * add, so more than this is not our proxy and is not buffered.
 */
export const MAX_PROXY_V2_LENGTH = 4096;

export type ProxyV2Result =
  /** Every byte so far can start a valid header: feed more. */
  | { readonly kind: 'need-more' }
  /** PROXY over TCP: the client is `source`; the HTTP stream starts after `headerLength` bytes. */
  | { readonly kind: 'proxied'; readonly source: string; readonly sourcePort: number; readonly headerLength: number }
  /** LOCAL (a health check), or no usable address: keep the socket's address. */
  | { readonly kind: 'local'; readonly headerLength: number }
  /** Not a valid version 2 header: the connection is refused. */
  | { readonly kind: 'reject'; readonly reason: string };

const NEED_MORE: ProxyV2Result = Object.freeze({ kind: 'need-more' });

const COMMAND_LOCAL = 0x0;
const COMMAND_PROXY = 0x1;
// Family and transport 0x0 are UNSPEC.
const FAMILY_INET = 0x1;
const FAMILY_INET6 = 0x2;
const FAMILY_UNIX = 0x3;
const TRANSPORT_STREAM = 0x1;
const TRANSPORT_DGRAM = 0x2;
/** Address block of TCP over IPv4 (2×4 + 2×2) and over IPv6 (2×16 + 2×2). */
const INET_BLOCK = 12;
const INET6_BLOCK = 36;

function reject(reason: string): ProxyV2Result {
  return { kind: 'reject', reason };
}

const hex = (byte: number): string => `0x${byte.toString(16).padStart(2, '0')}`;

/**
 * Reads a PROXY v2 header from the start of `input` (everything received on
 * the connection so far). Decides as soon as it can: a byte that breaks the
 * signature, version, command, family or length rejects at once.
 */
export function parseProxyV2(input: Buffer): ProxyV2Result {
  const signed = Math.min(input.length, PROXY_V2_SIGNATURE.length);
  for (let i = 0; i < signed; i++) {
    if (input[i] !== PROXY_V2_SIGNATURE[i]) return reject('the connection does not start with a PROXY protocol v2 header');
  }
  if (input.length <= PROXY_V2_SIGNATURE.length) return NEED_MORE;

  const versionCommand = input.readUInt8(12);
  if (versionCommand >> 4 !== 2) return reject(`PROXY protocol version ${versionCommand >> 4} is not supported (only 2)`);
  const command = versionCommand & 0x0f;
  if (command !== COMMAND_LOCAL && command !== COMMAND_PROXY) return reject(`unknown PROXY protocol command ${hex(versionCommand)}`);
  if (input.length < 14) return NEED_MORE;

  const familyTransport = input.readUInt8(13);
  const family = familyTransport >> 4;
  const transport = familyTransport & 0x0f;
  // LOCAL ignores the protocol block, family included (the spec's words).
  if (command === COMMAND_PROXY && (family > FAMILY_UNIX || transport > TRANSPORT_DGRAM)) {
    return reject(`unknown PROXY protocol address family or transport ${hex(familyTransport)}`);
  }
  if (input.length < PROXY_V2_FIXED_BYTES) return NEED_MORE;

  const length = input.readUInt16BE(14);
  if (length > MAX_PROXY_V2_LENGTH) return reject(`PROXY protocol header declares ${length} bytes, more than ${MAX_PROXY_V2_LENGTH}`);
  const headerLength = PROXY_V2_FIXED_BYTES + length;

  const tcp = command === COMMAND_PROXY && transport === TRANSPORT_STREAM && (family === FAMILY_INET || family === FAMILY_INET6);
  if (tcp) {
    // Refused before the whole header is in: a block too short for its family never completes.
    const block = family === FAMILY_INET ? INET_BLOCK : INET6_BLOCK;
    if (length < block) return reject(`PROXY protocol address block of ${length} bytes is too short for its family`);
  }
  if (input.length < headerLength) return NEED_MORE;
  if (!tcp) {
    // LOCAL, UNSPEC family or transport, UNIX, UDP: the address is not one we use.
    return { kind: 'local', headerLength };
  }

  const addressBytes = family === FAMILY_INET ? 4 : 16;
  const sourceStart = PROXY_V2_FIXED_BYTES;
  const source = addressFromBytes(input.subarray(sourceStart, sourceStart + addressBytes));
  const sourcePort = input.readUInt16BE(sourceStart + 2 * addressBytes);

  // TLVs: type (1), length (2), value; they must exactly fill the rest.
  let at = sourceStart + (family === FAMILY_INET ? INET_BLOCK : INET6_BLOCK);
  while (at < headerLength) {
    if (at + 3 > headerLength) return reject('PROXY protocol TLV cut short');
    at += 3 + input.readUInt16BE(at + 1);
    if (at > headerLength) return reject('PROXY protocol TLV longer than the header');
  }
  return { kind: 'proxied', source, sourcePort, headerLength };
}

/** Who a connection serves, once a trusted peer's header was read (by the TLS listener, before the hello). */
export interface ClientOf {
  readonly address: string;
  /** The trusted proxy's own connection (PROXY v2 LOCAL): no limit counts it. */
  readonly proxySelf: boolean;
}

/**
 * A trusted peer's PROXY v2 header as it arrives, in one chunk or several:
 * what came so far is kept until parseProxyV2 can judge it.
 */
export class ProxyHeaderReader {
  #pending: Buffer | undefined;
  /** What followed a complete header (for the HTTP parser). */
  rest: Buffer | undefined;

  /** The header judged with `chunk` added; once complete, `rest` holds what follows it. */
  read(chunk: Buffer): ProxyV2Result {
    const pending = this.#pending;
    const input = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
    const header = parseProxyV2(input);
    if (header.kind === 'need-more') this.#pending = input;
    else if (header.kind !== 'reject') this.rest = input.subarray(header.headerLength);
    return header;
  }
}
