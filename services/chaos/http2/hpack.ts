// HPACK (RFC 7541) for the chaos host's HTTP/2: a decoder of our own for what
// clients send (static and dynamic tables, Huffman, size updates), bounded for
// hostile input, and the encoder our frames use, which writes every field as
// a literal without indexing (§6.2.2), so it keeps no state and can lie freely.
import { HUFFMAN_CODES } from './huffman-table.js';

/** RFC 7541 Appendix A, index 1-61. */
const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'],
  [':scheme', 'http'], [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'],
  [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''], ['etag', ''],
  ['expect', ''], ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''], ['if-modified-since', ''],
  ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''],
  ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''], ['range', ''],
  ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''],
  ['strict-transport-security', ''], ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''],
  ['www-authenticate', ''],
];

/** One decoded field; names and values as latin1 strings (bytes kept one to one). */
export type HeaderField = readonly [name: string, value: string];

/** An HPACK decoding error: a COMPRESSION_ERROR connection error (RFC 9113 §4.3), or a bound of ours. */
export class HpackError extends Error {
  constructor(
    message: string,
    /** true: a bound of ours was passed (ENHANCE_YOUR_CALM), not malformed input. */
    readonly bound = false,
  ) {
    super(message);
    this.name = 'HpackError';
  }
}

/** The bounds of one decoder (issue 28, "The reader faces hostile clients"). */
export interface HpackLimits {
  /** The dynamic table size we advertise (SETTINGS_HEADER_TABLE_SIZE); a size update above it is an error. */
  readonly maxTableSize: number;
  /** A decoded header list (RFC 9113 §6.5.2 sizes: name + value + 32 per field) larger than this is refused. */
  readonly maxListBytes: number;
}

export const HPACK_LIMITS: HpackLimits = { maxTableSize: 4096, maxListBytes: 16 * 1024 };

/** The entry overhead of RFC 7541 §4.1. */
const ENTRY_OVERHEAD = 32;

// The Huffman code as a binary tree: node n's children at [2n] and [2n+1]; a leaf holds -(symbol + 1).
const tree = buildTree();

function buildTree(): Int32Array {
  const nodes: number[] = [0, 0];
  let count = 1;
  HUFFMAN_CODES.forEach(([code, bits], symbol) => {
    let node = 0;
    for (let i = bits - 1; i >= 0; i--) {
      const slot = node * 2 + ((code >>> i) & 1);
      if (i === 0) nodes[slot] = -(symbol + 1);
      else {
        if (nodes[slot] === 0) {
          nodes[slot] = count++;
          nodes.push(0, 0);
        }
        node = nodes[slot] as number;
      }
    }
  });
  return Int32Array.from(nodes);
}

const EOS = 256;

/** Decodes a Huffman string: EOS in the data, padding longer than 7 bits or not all ones are errors (RFC 7541 §5.2). */
export function huffmanDecode(input: Buffer): string {
  let out = '';
  let node = 0;
  let depth = 0;
  let ones = true;
  for (const byte of input) {
    for (let i = 7; i >= 0; i--) {
      const bit = (byte >>> i) & 1;
      ones &&= bit === 1;
      depth++;
      const next = tree[node * 2 + bit] as number;
      if (next < 0) {
        const symbol = -next - 1;
        if (symbol === EOS) throw new HpackError('Huffman string contains EOS');
        out += String.fromCharCode(symbol);
        node = 0;
        depth = 0;
        ones = true;
      } else node = next;
    }
  }
  if (depth > 7 || !ones) throw new HpackError('Huffman padding is not an EOS prefix of at most 7 bits');
  return out;
}

/** Huffman-encodes latin1 text (used by tests and by lies that must look real). */
export function huffmanEncode(text: string): Buffer {
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const [code, length] = HUFFMAN_CODES[text.charCodeAt(i) & 0xff] as readonly [number, number];
    for (let b = length - 1; b >= 0; b--) {
      acc = (acc << 1) | ((code >>> b) & 1);
      if (++bits === 8) {
        bytes.push(acc);
        acc = 0;
        bits = 0;
      }
    }
  }
  if (bits > 0) bytes.push(((acc << (8 - bits)) | ((1 << (8 - bits)) - 1)) & 0xff);
  return Buffer.from(bytes);
}

/** Reads HPACK header blocks of one connection; its dynamic table lives as long as the connection. */
export class HpackDecoder {
  /** Newest first. */
  readonly #table: HeaderField[] = [];
  #tableBytes = 0;
  /** The current maximum, set by size updates, never above the advertised one. */
  #maxTableBytes: number;
  readonly #limits: HpackLimits;

  constructor(limits: HpackLimits = HPACK_LIMITS) {
    this.#limits = limits;
    this.#maxTableBytes = limits.maxTableSize;
  }

  /** The dynamic table's size in RFC 7541 §4.1 bytes. */
  get tableBytes(): number {
    return this.#tableBytes;
  }

  /** The dynamic table, newest first (tests). */
  get entries(): readonly HeaderField[] {
    return this.#table;
  }

  /** Decodes one whole header block; throws HpackError (the connection is then unusable). */
  decode(block: Buffer): HeaderField[] {
    const fields: HeaderField[] = [];
    let listBytes = 0;
    let pos = 0;
    let fieldSeen = false;
    const readInt = (prefixBits: number): number => {
      const mask = (1 << prefixBits) - 1;
      let value = (block[pos++] as number) & mask;
      if (value < mask) return value;
      let shift = 0;
      for (;;) {
        if (pos >= block.length) throw new HpackError('integer runs past the block');
        const byte = block[pos++] as number;
        value += (byte & 0x7f) * 2 ** shift;
        shift += 7;
        // Nothing legitimate needs more than 2^28: a longer integer is an attack on the arithmetic.
        if (value > 0x0fffffff) throw new HpackError('integer too large');
        if ((byte & 0x80) === 0) return value;
      }
    };
    const readString = (): string => {
      if (pos >= block.length) throw new HpackError('string runs past the block');
      const huffman = ((block[pos] as number) & 0x80) !== 0;
      const length = readInt(7);
      if (length > block.length - pos) throw new HpackError('string runs past the block');
      const bytes = block.subarray(pos, pos + length);
      pos += length;
      return huffman ? huffmanDecode(bytes) : bytes.toString('latin1');
    };
    while (pos < block.length) {
      const byte = block[pos] as number;
      let field: HeaderField;
      if (byte & 0x80) {
        field = this.#lookup(readInt(7));
      } else if ((byte & 0xe0) === 0x20) {
        // A size update must come first in a block (RFC 7541 §4.2).
        if (fieldSeen) throw new HpackError('dynamic table size update after a field');
        const size = readInt(5);
        if (size > this.#limits.maxTableSize) throw new HpackError(`dynamic table size update to ${size}, above the advertised ${this.#limits.maxTableSize}`);
        this.#maxTableBytes = size;
        this.#evict(0);
        continue;
      } else {
        const incremental = (byte & 0xc0) === 0x40;
        const index = readInt(incremental ? 6 : 4);
        const name = index === 0 ? readString() : (this.#lookup(index)[0] as string);
        field = [name, readString()];
        if (incremental) this.#insert(field);
      }
      fieldSeen = true;
      listBytes += field[0].length + field[1].length + ENTRY_OVERHEAD;
      if (listBytes > this.#limits.maxListBytes) throw new HpackError(`decoded header list larger than ${this.#limits.maxListBytes} bytes`, true);
      fields.push(field);
    }
    return fields;
  }

  #lookup(index: number): HeaderField {
    if (index === 0) throw new HpackError('index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1] as HeaderField;
    const entry = this.#table[index - STATIC_TABLE.length - 1];
    if (entry === undefined) throw new HpackError(`index ${index} is past the tables`);
    return entry;
  }

  #insert(field: HeaderField): void {
    const size = field[0].length + field[1].length + ENTRY_OVERHEAD;
    // An entry larger than the table empties it and is not added (RFC 7541 §4.4).
    this.#evict(size);
    if (size > this.#maxTableBytes) return;
    this.#table.unshift(field);
    this.#tableBytes += size;
  }

  /** Evicts oldest entries until `room` more bytes fit. */
  #evict(room: number): void {
    while (this.#table.length > 0 && this.#tableBytes + room > this.#maxTableBytes) {
      const old = this.#table.pop() as HeaderField;
      this.#tableBytes -= old[0].length + old[1].length + ENTRY_OVERHEAD;
    }
  }
}

/** An HPACK integer with an N-bit prefix whose high bits are `flags`. */
export function encodeInteger(value: number, prefixBits: number, flags: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [flags | value];
  const out = [flags | max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

/** Fields as literals without indexing, new name, no Huffman (RFC 7541 §6.2.2): bytes exactly as given. */
export function encodeLiterals(fields: readonly HeaderField[]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from([0x00, ...encodeInteger(name.length, 7, 0)]), Buffer.from(name, 'latin1'));
    parts.push(Buffer.from(encodeInteger(value.length, 7, 0)), Buffer.from(value, 'latin1'));
  }
  return Buffer.concat(parts);
}
