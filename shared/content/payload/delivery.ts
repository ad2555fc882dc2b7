// Twin content, payload family (delivery): /compression, /range.
// Resources and HTTP mechanics /compression and /range share between the
// chaos host and its control twin: both hosts serve the same bytes, so only
// the documented lie differs. Everything here is computed once at module load;
// the per-call paths are slices and lookups.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlibConstants, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import type { HeaderList } from '../../primitives/headers.js';
import { jsonBody } from '../../primitives/json.js';

// ---------------------------------------------------------------------------
// /compression: one plain-text resource and its real encodings.

function compressionText(): string {
  let text =
    'Chaos Endpoint Service: the /compression resource.\n' +
    'The chaos host and the control host serve this same text; only the framing differs.\n';
  for (let i = 1; i <= 16; i++) {
    text += `line ${String(i).padStart(2, '0')}: the quick brown fox jumps over the lazy dog\n`;
  }
  return text;
}

export const COMPRESSION_TYPE = 'text/plain; charset=utf-8';
/** The plain text every /compression response carries, in one coding or another. */
export const COMPRESSION_PLAIN: Buffer = Buffer.from(compressionText(), 'utf8');

/**
 * The codings the control twin really produces, in our order of preference on
 * a q-value tie. zstd (RFC 8878) is last, so a header that does not name it
 * gets what it got before zstd was added.
 */
export const CODINGS = ['br', 'gzip', 'deflate', 'zstd'] as const;
export type Coding = (typeof CODINGS)[number] | 'identity';

// node's gzip writes MTIME 0 and a fixed OS byte, so these bytes are the same on every start.
export const COMPRESSION_ENCODED: Readonly<Record<Coding, Buffer>> = {
  identity: COMPRESSION_PLAIN,
  gzip: gzipSync(COMPRESSION_PLAIN),
  // HTTP's "deflate" is the zlib format (RFC 9110 §8.4.1.2), not raw deflate.
  deflate: deflateSync(COMPRESSION_PLAIN),
  br: brotliCompressSync(COMPRESSION_PLAIN, {
    params: { [zlibConstants.BROTLI_PARAM_SIZE_HINT]: COMPRESSION_PLAIN.length },
  }),
  // With the frame's content checksum (XXH64, low 4 bytes at the end), so the
  // zstd-bad-checksum lie has a checksum to break.
  zstd: zstdCompressSync(COMPRESSION_PLAIN, { params: { [zlibConstants.ZSTD_c_checksumFlag]: 1 } }),
};

// ---------------------------------------------------------------------------
// /compression's zstd lies: each a frame a zstd decoder refuses for its own reason.

const ZSTD_MAGIC = 0xfd2fb528;
/** The Dictionary_ID zstd-unknown-dictionary's frame names (any id outside the reserved ranges). */
export const ZSTD_DICTIONARY_ID = 0x00c4a05d;
/** The dictionary its blocks really use: raw content never sent, announced or negotiated. */
export const ZSTD_DICTIONARY = Buffer.from('the quick brown fox jumps over the lazy dog\nChaos Endpoint Service: /compression\n', 'latin1');

/** The frame header descriptor's offset and whether a Window_Descriptor byte follows it (RFC 8878 §3.1.1.1). */
function withDictionaryId(frame: Buffer, id: number): Buffer {
  if (frame.readUInt32LE(0) !== ZSTD_MAGIC) throw new Error('not a zstd frame');
  const descriptor = frame[4] as number;
  if ((descriptor & 0x03) !== 0) throw new Error('the frame already names a dictionary');
  const singleSegment = (descriptor & 0x20) !== 0;
  const at = 5 + (singleSegment ? 0 : 1);
  const field = Buffer.alloc(4);
  field.writeUInt32LE(id, 0);
  // Dictionary_ID_flag 3: a 4-byte Dictionary_ID right after the window descriptor.
  return Buffer.concat([frame.subarray(0, 4), Buffer.from([descriptor | 0x03]), frame.subarray(5, at), field, frame.subarray(at)]);
}

/** The zstd lies' bodies; every one is labelled `Content-Encoding: zstd`. */
export const ZSTD_LIES = {
  /** The real gzip bytes (1f 8b …): no zstd magic number. */
  gzip: COMPRESSION_ENCODED.gzip,
  /** The honest frame cut in half: the last block and the checksum never come. */
  truncated: COMPRESSION_ENCODED.zstd.subarray(0, Math.floor(COMPRESSION_ENCODED.zstd.length / 2)),
  /** The honest frame with the 4 checksum bytes inverted: every block decodes, the check fails. */
  badChecksum: Buffer.concat([
    COMPRESSION_ENCODED.zstd.subarray(0, -4),
    Buffer.from(COMPRESSION_ENCODED.zstd.subarray(-4).map((b) => b ^ 0xff)),
  ]),
  /** Compressed against ZSTD_DICTIONARY, and its header names Dictionary_ID ZSTD_DICTIONARY_ID. */
  dictionary: withDictionaryId(
    zstdCompressSync(COMPRESSION_PLAIN, { dictionary: ZSTD_DICTIONARY, params: { [zlibConstants.ZSTD_c_checksumFlag]: 1 } }),
    ZSTD_DICTIONARY_ID,
  ),
} as const;

const Q_RE = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i;
const CODING_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Accept-Encoding negotiation (RFC 9110 §12.5.3): the acceptable coding with
 * the highest q-value, ties broken by CODINGS order, then identity. `*`
 * covers every coding not named; identity is acceptable unless excluded by
 * `identity;q=0` or by `*;q=0` without an identity entry. No header, an empty
 * one, or nothing acceptable: identity (the RFC's advice when no coding fits).
 * Elements that do not parse (bad q, bad token) are skipped.
 */
export function negotiateEncoding(header: string | undefined): Coding {
  if (header === undefined) return 'identity';
  const q = new Map<string, number>();
  for (const element of header.split(',')) {
    const parts = element.split(';').map((p) => p.trim());
    const name = (parts[0] ?? '').toLowerCase();
    if (name === '' || !CODING_RE.test(name)) continue;
    let weight = 1;
    let valid = true;
    for (const param of parts.slice(1)) {
      const m = Q_RE.exec(param.replace(/\s*=\s*/, '='));
      if (m) weight = Number(m[1]);
      else valid = false;
    }
    if (!valid) continue;
    // x-gzip is gzip (RFC 9110 §8.4.1.3); the first entry for a coding wins.
    const key = name === 'x-gzip' ? 'gzip' : name;
    if (!q.has(key)) q.set(key, weight);
  }
  const star = q.get('*');
  let best: Coding = 'identity';
  let bestQ = 0;
  for (const coding of CODINGS) {
    const weight = q.get(coding) ?? star ?? 0;
    if (weight > bestQ) {
      best = coding;
      bestQ = weight;
    }
  }
  if (bestQ > 0) {
    // identity only wins when it is explicitly preferred to every coding.
    const identityQ = q.get('identity');
    return identityQ !== undefined && identityQ > bestQ ? 'identity' : best;
  }
  return 'identity';
}

// ---------------------------------------------------------------------------
// /range: a 4000-byte ASCII resource whose bytes tell their own offset.

/** 400 records of 10 bytes: the record's own offset in 9 digits, then LF ("000000500\n" starts at 500). */
export const RANGE_RECORD = 10;
export const RANGE_SIZE = 4000;
export const RANGE_TYPE = 'text/plain; charset=utf-8';
export const RANGE_BODY: Buffer = Buffer.from(
  Array.from({ length: RANGE_SIZE / RANGE_RECORD }, (_, i) => `${String(i * RANGE_RECORD).padStart(9, '0')}\n`).join(''),
  'latin1',
);
export const RANGE_ETAG = `"${createHash('sha256').update(RANGE_BODY).digest('hex').slice(0, 16)}"`;
/** Fixed boundary: the resource holds only digits and LF, so it can never occur in a part. */
export const RANGE_BOUNDARY = 'chaos-byteranges-7f3a91c2';
/** More ranges than this in one Range field and the field is ignored (RFC 9110 §14.2 lets a server). */
export const MAX_RANGES = 16;

/** One byte-range-spec as written: `first-last`, `first-`, or the suffix `-length`. */
export type RangeSpec =
  | { readonly kind: 'int'; readonly first: number; readonly last: number | undefined }
  | { readonly kind: 'suffix'; readonly length: number };

const RANGE_SPEC_RE = /^(\d+)-(\d*)$|^-(\d+)$/;

/**
 * Parses a Range value (RFC 9110 §14.1.2). Undefined when the field must be
 * ignored: another unit, bad syntax, a first-pos after its last-pos, no
 * range at all, or more than MAX_RANGES ranges.
 */
export function parseRange(value: string): RangeSpec[] | undefined {
  const eq = value.indexOf('=');
  if (eq === -1 || value.slice(0, eq).toLowerCase() !== 'bytes') return undefined;
  const specs: RangeSpec[] = [];
  for (const element of value.slice(eq + 1).split(',')) {
    const text = element.trim();
    if (text === '') continue;
    const m = RANGE_SPEC_RE.exec(text);
    if (!m) return undefined;
    if (m[3] !== undefined) {
      specs.push({ kind: 'suffix', length: Number(m[3]) });
    } else {
      const first = Number(m[1]);
      const last = m[2] === '' ? undefined : Number(m[2]);
      if (last !== undefined && last < first) return undefined;
      specs.push({ kind: 'int', first, last });
    }
    if (specs.length > MAX_RANGES) return undefined;
  }
  return specs.length > 0 ? specs : undefined;
}

/** An inclusive byte interval of the resource. */
export type Interval = readonly [start: number, end: number];

/**
 * A spec against a representation of `size` bytes; undefined when
 * unsatisfiable (first-pos at or past the end, or a zero suffix).
 * `suffixAsPrefix` is the chaos host's suffix-confusion: -N read as the first N bytes.
 */
export function resolveRange(spec: RangeSpec, size: number, suffixAsPrefix = false): Interval | undefined {
  if (spec.kind === 'suffix') {
    if (spec.length === 0) return undefined;
    const n = Math.min(spec.length, size);
    return suffixAsPrefix ? [0, n - 1] : [size - n, size - 1];
  }
  if (spec.first >= size) return undefined;
  return [spec.first, Math.min(spec.last ?? size - 1, size - 1)];
}

/**
 * Coalesces ranges that overlap or touch, keeping the order in which they
 * were requested (RFC 9110 §14.6: parts in request order; coalescing allowed).
 */
export function coalesce(intervals: readonly Interval[]): Interval[] {
  const parts: Interval[] = [...intervals];
  for (let merged = true; merged; ) {
    merged = false;
    outer: for (let i = 0; i < parts.length; i++) {
      for (let j = i + 1; j < parts.length; j++) {
        const a = parts[i] as Interval;
        const b = parts[j] as Interval;
        if (a[0] <= b[1] + 1 && b[0] <= a[1] + 1) {
          parts[i] = [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
          parts.splice(j, 1);
          merged = true;
          break outer;
        }
      }
    }
  }
  return parts;
}

/** A complete range answer; the caller adds its host's own header lines. */
export interface RangeAnswer {
  readonly status: 200 | 206 | 416;
  readonly contentType: string;
  readonly body: Buffer;
  /** Accept-Ranges, ETag and, when it applies, Content-Range. */
  readonly headers: HeaderList;
}

/** How a range answer departs from RFC 9110; all false/0 is the control twin. */
export interface RangeQuirks {
  /** accepts-range-lies: part bytes are read this many bytes further on (wrapping). */
  readonly offset?: number;
  /** stale-if-range: If-Range is never evaluated. */
  readonly ignoreIfRange?: boolean;
  /** suffix-confusion: `-N` serves the first N bytes (and says so in Content-Range). */
  readonly suffixAsPrefix?: boolean;
}

const RANGE_COMMON: HeaderList = [
  ['Accept-Ranges', 'bytes'],
  ['ETag', RANGE_ETAG],
];

export const RANGE_FULL: RangeAnswer = { status: 200, contentType: RANGE_TYPE, body: RANGE_BODY, headers: RANGE_COMMON };

const RANGE_UNSATISFIABLE: RangeAnswer = {
  status: 416,
  contentType: 'application/json',
  body: jsonBody({ endpoint: '/range', error: 'range_not_satisfiable', size: RANGE_SIZE }),
  headers: [...RANGE_COMMON, ['Content-Range', `bytes */${RANGE_SIZE}`]],
};

/** The resource's bytes [start, end], read `offset` bytes further on, wrapping at the end. */
export function rangeBytes([start, end]: Interval, offset = 0): Buffer {
  const from = (start + offset) % RANGE_SIZE;
  const length = end - start + 1;
  if (from + length <= RANGE_SIZE) return RANGE_BODY.subarray(from, from + length);
  return Buffer.concat([RANGE_BODY.subarray(from), RANGE_BODY.subarray(0, from + length - RANGE_SIZE)]);
}

export function contentRange([start, end]: Interval): string {
  return `bytes ${start}-${end}/${RANGE_SIZE}`;
}

/** A 206 for these parts: single part, or multipart/byteranges in the given order. */
export function partialAnswer(parts: readonly Interval[], offset = 0): RangeAnswer {
  const [only] = parts;
  if (parts.length === 1 && only) {
    return {
      status: 206,
      contentType: RANGE_TYPE,
      body: rangeBytes(only, offset),
      headers: [...RANGE_COMMON, ['Content-Range', contentRange(only)]],
    };
  }
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(
      Buffer.from(`--${RANGE_BOUNDARY}\r\nContent-Type: ${RANGE_TYPE}\r\nContent-Range: ${contentRange(part)}\r\n\r\n`, 'latin1'),
      rangeBytes(part, offset),
      CRLF,
    );
  }
  chunks.push(Buffer.from(`--${RANGE_BOUNDARY}--\r\n`, 'latin1'));
  return {
    status: 206,
    contentType: `multipart/byteranges; boundary=${RANGE_BOUNDARY}`,
    body: Buffer.concat(chunks),
    headers: RANGE_COMMON,
  };
}

const CRLF = Buffer.from('\r\n', 'latin1');

/**
 * RFC 9110 range handling for the /range resource, with optional quirks:
 * no Range or an ignorable one → 200 full; If-Range (only looked at with a
 * Range) that is not exactly our strong ETag → 200 full (a weak tag or a date
 * never matches: we send no Last-Modified); no satisfiable range → 416;
 * else 206 with the satisfiable ranges, coalesced, in request order.
 */
export function answerRange(range: string | undefined, ifRange: string | undefined, quirks: RangeQuirks = {}): RangeAnswer {
  if (range === undefined) return RANGE_FULL;
  const specs = parseRange(range);
  if (!specs) return RANGE_FULL;
  if (!quirks.ignoreIfRange && ifRange !== undefined && ifRange.trim() !== RANGE_ETAG) return RANGE_FULL;
  const satisfiable: Interval[] = [];
  for (const spec of specs) {
    const interval = resolveRange(spec, RANGE_SIZE, quirks.suffixAsPrefix);
    if (interval) satisfiable.push(interval);
  }
  if (satisfiable.length === 0) return RANGE_UNSATISFIABLE;
  return partialAnswer(coalesce(satisfiable), quirks.offset);
}
