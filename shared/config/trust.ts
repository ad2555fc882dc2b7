// Who is believed about a client's address (TRUST_PROXY, DESIGN §9): a list of
// addresses and CIDRs, and the address arithmetic the limits' keys need.
// Pure: no I/O, nothing read from the environment.
//
// Every address is held as eight 16-bit groups; an IPv4 address is held
// IPv4-mapped (::ffff:a.b.c.d), so `10.0.0.0/8` also matches
// `::ffff:10.1.2.3` and one comparison serves both families. Addresses leave
// this module in one canonical text form (dotted IPv4; lower-case, compressed
// IPv6 per RFC 5952), at most 39 characters: a rate-limit key built from one is
// bounded, and one client has one key whichever way its address was written.
import net from 'node:net';

/** Eight 16-bit groups, most significant first. */
type Groups = Uint16Array;

/** Longest text we try to read as an address (an IPv6 address with an IPv4 tail is 45). */
const MAX_ADDRESS_TEXT = 45;

/**
 * X-Forwarded-For entries examined from the right: our own proxies add one or
 * two; a client's own list beyond that is never believed anyway, so a long
 * header costs a bounded walk.
 */
export const MAX_FORWARDED_HOPS = 16;

/** The address written in `text` (IPv4 or IPv6, no zone, no brackets, no port), or undefined. */
function parseAddress(text: string): Groups | undefined {
  if (text.length > MAX_ADDRESS_TEXT) return undefined;
  const family = net.isIP(text);
  if (family === 4) return ipv4Groups(text);
  // A zone (fe80::1%eth0) names an interface, not a client.
  if (family !== 6 || text.includes('%')) return undefined;
  const double = text.indexOf('::');
  let words: number[];
  if (double === -1) {
    words = ipv6Words(text);
  } else {
    const left = ipv6Words(text.slice(0, double));
    const right = ipv6Words(text.slice(double + 2));
    const zeros = 8 - left.length - right.length;
    if (zeros < 1) return undefined;
    words = [...left, ...new Array<number>(zeros).fill(0), ...right];
  }
  if (words.length !== 8 || words.some((w) => !(w >= 0 && w <= 0xffff))) return undefined;
  return Uint16Array.from(words);
}

/** The 16-bit words of one side of `::` (net.isIP already checked the syntax). */
function ipv6Words(side: string): number[] {
  if (side === '') return [];
  const words: number[] = [];
  for (const part of side.split(':')) {
    if (part.includes('.')) {
      const mapped = ipv4Groups(part);
      if (!mapped) return [NaN];
      words.push(mapped[6] as number, mapped[7] as number);
    } else {
      words.push(parseInt(part, 16));
    }
  }
  return words;
}

function ipv4Groups(text: string): Groups | undefined {
  const octets = text.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !(o >= 0 && o <= 255))) return undefined;
  const [a, b, c, d] = octets as [number, number, number, number];
  return Uint16Array.of(0, 0, 0, 0, 0, 0xffff, (a << 8) | b, (c << 8) | d);
}

function isMapped(g: Groups): boolean {
  return g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff;
}

/** The canonical text of an address: dotted for IPv4 (mapped ones too), RFC 5952 for IPv6. */
function formatGroups(g: Groups): string {
  if (isMapped(g)) {
    const hi = g[6] as number;
    const lo = g[7] as number;
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  // The longest run of two or more zero groups (the first on a tie) becomes `::`.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number): string => Array.from(g.subarray(from, to), (w) => w.toString(16)).join(':');
  if (bestStart === -1) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/**
 * The canonical form of an address written as text (`::FFFF:10.0.0.1` →
 * `10.0.0.1`, `2001:DB8:0:0::1` → `2001:db8::1`), or undefined when `text` is
 * not an IP address (a name, a port, a zone, brackets, garbage of any length).
 */
export function canonicalAddress(text: string): string | undefined {
  const groups = parseAddress(text);
  return groups && formatGroups(groups);
}

/**
 * The canonical form of a source address read from the wire as 4 (IPv4) or
 * 16 (IPv6) bytes in network order; an IPv4-mapped IPv6 address becomes
 * dotted IPv4.
 */
export function addressFromBytes(bytes: Uint8Array): string {
  if (bytes.length === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  if (bytes.length !== 16) throw new RangeError(`an address is 4 or 16 bytes, not ${bytes.length}`);
  const g = new Uint16Array(8);
  for (let i = 0; i < 8; i++) g[i] = ((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number);
  return formatGroups(g);
}

/**
 * A socket's peer address as a limit key: node already writes it canonically,
 * except that a dual-stack listener reports IPv4 clients IPv4-mapped
 * (`::ffff:127.0.0.1`), which is the same client as `127.0.0.1`.
 */
export function peerAddress(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return '';
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.') ? remoteAddress.slice(7) : remoteAddress;
}

interface Range {
  readonly groups: Groups;
  /** Leading bits that must match, 0–128 (an IPv4 /n is 96 + n). */
  readonly bits: number;
}

function inRange(g: Groups, range: Range): boolean {
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if (((g[i] as number) & mask) !== ((range.groups[i] as number) & mask)) return false;
  }
  return true;
}

/** TRUST_PROXY, parsed: the peers whose PROXY header or X-Forwarded-For is believed. */
export interface TrustList {
  /** The entries in canonical form, `address/bits` (`127.0.0.0/8`, `::1/128`). */
  readonly entries: readonly string[];
  /** Nobody is trusted (the default): callers can skip every other check. */
  readonly empty: boolean;
  /** Whether `address` (as text, either family, IPv4-mapped or not) lies in one of the entries; false for anything that is not an address. */
  isTrusted(address: string): boolean;
}

/** A TRUST_PROXY entry that is neither an address, a CIDR nor `loopback`. */
export class TrustListError extends Error {
  constructor(readonly entry: string) {
    super(`${JSON.stringify(entry)} is not an IP address, a CIDR or "loopback"`);
    this.name = 'TrustListError';
  }
}

/** `loopback` stands for both loopback ranges (what the local HAProxy connects from). */
const LOOPBACK = ['127.0.0.0/8', '::1/128'];

function parseEntry(entry: string): Range {
  const slash = entry.indexOf('/');
  const groups = parseAddress(slash === -1 ? entry : entry.slice(0, slash));
  if (!groups) throw new TrustListError(entry);
  const ipv4 = isMapped(groups) && net.isIPv4(slash === -1 ? entry : entry.slice(0, slash));
  const width = ipv4 ? 32 : 128;
  let prefix = width;
  if (slash !== -1) {
    const digits = entry.slice(slash + 1);
    if (!/^\d{1,3}$/.test(digits) || Number(digits) > width) throw new TrustListError(entry);
    prefix = Number(digits);
  }
  const bits = ipv4 ? 96 + prefix : prefix;
  // Host bits are dropped: `10.1.2.3/8` is `10.0.0.0/8`.
  const network = Uint16Array.from(groups, (w, i) => {
    const keep = Math.max(0, Math.min(16, bits - 16 * i));
    return keep === 0 ? 0 : w & ((0xffff << (16 - keep)) & 0xffff);
  });
  return { groups: network, bits };
}

function describe(range: Range): string {
  const ipv4 = range.bits >= 96 && isMapped(range.groups);
  return `${formatGroups(range.groups)}/${ipv4 ? range.bits - 96 : range.bits}`;
}

/**
 * Parses TRUST_PROXY: comma-separated IPv4/IPv6 addresses and CIDRs (blanks
 * around entries ignored), and the word `loopback` (127.0.0.0/8 and ::1).
 * Empty or blank trusts nobody. Throws TrustListError naming the first entry
 * that is none of these (`::::`, `1.2.3.4/33`, `host.example`).
 */
export function parseTrustList(raw: string): TrustList {
  const ranges: Range[] = [];
  for (const item of raw.split(',')) {
    const entry = item.trim();
    if (entry === '') continue;
    if (entry.toLowerCase() === 'loopback') ranges.push(...LOOPBACK.map(parseEntry));
    else ranges.push(parseEntry(entry));
  }
  const entries = Object.freeze([...new Set(ranges.map(describe))]);
  const empty = ranges.length === 0;
  return Object.freeze({
    entries,
    empty,
    isTrusted(address: string): boolean {
      if (empty) return false;
      const groups = parseAddress(address);
      return groups !== undefined && ranges.some((range) => inRange(groups, range));
    },
  });
}

/**
 * The client named by an X-Forwarded-For value that a trusted peer sent: the
 * right-most entry that is an IP address and is not itself trusted, in
 * canonical form. When every address read is trusted (a client on the
 * proxy's own network, such as 127.0.0.2 behind the local HAProxy), the
 * left-most of them: the furthest hop the chain vouches for. Entries that
 * are not addresses are skipped; only the last MAX_FORWARDED_HOPS entries
 * are examined. Undefined when none is an address (the caller then keeps the
 * peer's address).
 */
export function clientFromForwarded(value: string, trust: TrustList): string | undefined {
  let end = value.length;
  let furthestTrusted: string | undefined;
  for (let hops = 0; hops < MAX_FORWARDED_HOPS && end > 0; hops++) {
    const comma = value.lastIndexOf(',', end - 1);
    const entry = value.slice(comma + 1, end).trim();
    end = comma;
    const address = canonicalAddress(entry);
    if (address === undefined) continue;
    if (!trust.isTrusted(address)) return address;
    furthestTrusted = address;
  }
  return furthestTrusted;
}
