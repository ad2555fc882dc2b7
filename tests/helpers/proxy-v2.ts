// Builds PROXY protocol v2 headers byte by byte, as HAProxy's send-proxy-v2
// writes them, with every field overridable so tests can break one at a time.
import net from 'node:net';
import { MemoryStore } from '../../shared/store/memory.js';
import type { RateCheck, RateDecision } from '../../shared/store/types.js';

export const SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

export interface ProxyV2Fields {
  /** 'proxy' (default) or 'local', or a raw low nibble. */
  readonly command?: 'proxy' | 'local' | number;
  /** High nibble of the 13th byte (default 2). */
  readonly version?: number;
  /** The 14th byte; by default TCP over the source's family (0x11 or 0x21), 0x00 for LOCAL. */
  readonly familyTransport?: number;
  readonly source?: string;
  readonly sourcePort?: number;
  readonly destination?: string;
  readonly destinationPort?: number;
  readonly tlvs?: readonly { readonly type: number; readonly value: Buffer }[];
  /** Raw bytes in place of the address block and TLVs. */
  readonly block?: Buffer;
  /** The length field, when it must lie. */
  readonly length?: number;
}

/** 4 or 16 bytes of an address written without a zone (IPv6 may end in dotted IPv4). */
export function addressBytes(address: string): Buffer {
  if (net.isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  if (!net.isIPv6(address)) throw new Error(`not an address: ${address}`);
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, dotted.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const words = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const head = words(left);
  const tail = right === undefined ? [] : words(right);
  const all = right === undefined ? head : [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  const out = Buffer.alloc(16);
  all.forEach((w, i) => out.writeUInt16BE(parseInt(w, 16), 2 * i));
  return out;
}

export function proxyV2(fields: ProxyV2Fields = {}): Buffer {
  const command = fields.command === 'local' ? 0 : fields.command === undefined || fields.command === 'proxy' ? 1 : fields.command;
  const source = fields.source ?? '192.0.2.1';
  const ipv6 = net.isIPv6(source);
  const familyTransport = fields.familyTransport ?? (command === 0 && fields.source === undefined ? 0x00 : ipv6 ? 0x21 : 0x11);
  let block: Buffer;
  if (fields.block) {
    block = fields.block;
  } else if (familyTransport === 0x00) {
    block = Buffer.alloc(0);
  } else {
    const ports = Buffer.alloc(4);
    ports.writeUInt16BE(fields.sourcePort ?? 40000, 0);
    ports.writeUInt16BE(fields.destinationPort ?? 8080, 2);
    const destination = fields.destination ?? (ipv6 ? '2001:db8::80' : '198.51.100.80');
    block = Buffer.concat([addressBytes(source), addressBytes(destination), ports]);
  }
  const tlvs = (fields.tlvs ?? []).map(({ type, value }) => {
    const head = Buffer.alloc(3);
    head.writeUInt8(type, 0);
    head.writeUInt16BE(value.length, 1);
    return Buffer.concat([head, value]);
  });
  const body = Buffer.concat([block, ...tlvs]);
  const fixed = Buffer.alloc(4);
  fixed.writeUInt8(((fields.version ?? 2) << 4) | command, 0);
  fixed.writeUInt8(familyTransport, 1);
  fixed.writeUInt16BE(fields.length ?? body.length, 2);
  return Buffer.concat([SIGNATURE, fixed, body]);
}

/** An in-memory store that notes every rate-limit key it is asked about, so a test can see whom the limits count. */
export class RecordingStore extends MemoryStore {
  /** Each limiter key asked about, as `policy:client` (its leading `<host>:` part is kept in `hosts`). */
  readonly keys: string[] = [];
  readonly hosts: string[] = [];

  override checkRateNow(checks: readonly RateCheck[]): RateDecision {
    for (const check of checks) {
      const colon = check.key.indexOf(':');
      this.hosts.push(check.key.slice(0, colon));
      this.keys.push(check.key.slice(colon + 1));
    }
    return super.checkRateNow(checks);
  }
}
