// Body framing for the chaos parser: a Content-Length body, or chunked
// framing with its sizes, CRLFs and trailer section, counted and discarded
// (bounded), the first bytes kept when a capture asked for them.
import { CR, EMPTY, LF, type InputBuffer } from './parser-input.js';
import { RequestRejected, type ParserLimits } from './parser-types.js';

/** The framing of a chunked body (any other framing is a length). */
export const CHUNKED = -1;

const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible ASCII, obs-text, SP and HTAB; never CTLs (NUL included) or DEL.
const BAD_VALUE_RE = /[\x00-\x08\x0a-\x1f\x7f]/;
const CHUNK_SIZE_RE = /^([0-9a-fA-F]{1,8})(;[\x09\x20-\x7e]*)?$/;
const MAX_CHUNK_LINE = 1024;
const MAX_TRAILER_BYTES = 8192;
/** Fields that frame or route a message: refused in a trailer section. */
const FORBIDDEN_TRAILERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'trailer', 'host']);

type Part = 'length' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailers';

export class BodyReader {
  #part: Part = 'length';
  #remaining = 0;
  /** The Content-Length, or the chunk sizes so far. */
  total = 0;
  #trailerBytes = 0;
  /** Body bytes kept so far are #kept[0..#keptBytes); its length never exceeds #keepMax. */
  #kept: Buffer | undefined;
  #keptBytes = 0;
  #keepMax = 0;

  constructor(private readonly limits: ParserLimits) {}

  /** A new request's body: `framing` is its length (0: none) or CHUNKED. */
  start(framing: number): void {
    if (framing === CHUNKED) {
      this.total = 0;
      this.#part = 'chunk-size';
    } else {
      this.total = framing;
      this.#remaining = framing;
      this.#part = 'length';
    }
  }

  /** Keep the first `max` bytes of this body (a negative or non-numeric max keeps none). */
  keep(max: number): void {
    this.#keepMax = max > 0 ? Math.floor(max) : 0;
    this.#keptBytes = 0;
    this.#kept = EMPTY;
  }

  /** The bytes kept, when a capture asked (see keep). */
  get kept(): Buffer | undefined {
    const kept = this.#kept;
    return kept === undefined || kept.length === this.#keptBytes ? kept : kept.subarray(0, this.#keptBytes);
  }

  /** Whether the body had more bytes than were kept; undefined when nothing was to be kept. */
  get truncated(): boolean | undefined {
    return this.#kept === undefined ? undefined : this.total > this.#keptBytes;
  }

  /** Drops what was kept. */
  clear(): void {
    this.#kept = undefined;
  }

  /** Reads what it can of the body from `input`; true once the body is complete. */
  read(input: InputBuffer): boolean {
    for (;;) {
      switch (this.#part) {
        case 'length':
        case 'chunk-data': {
          const take = Math.min(this.#remaining, input.end - input.start);
          if (this.#kept !== undefined) this.#keepBody(input, take);
          input.consume(take);
          this.#remaining -= take;
          if (this.#remaining > 0) return false;
          if (this.#part === 'length') return true;
          this.#part = 'chunk-crlf';
          break;
        }
        case 'chunk-size': {
          const line = input.readLine(MAX_CHUNK_LINE, 'chunk size line too long', 400);
          if (line === undefined) return false;
          const m = CHUNK_SIZE_RE.exec(line);
          if (!m) throw new RequestRejected(400, 'invalid chunk size');
          const size = parseInt(m[1] as string, 16);
          this.total += size;
          if (this.total > this.limits.maxBodyBytes) throw new RequestRejected(413, 'request body too large');
          if (size === 0) {
            this.#part = 'trailers';
            this.#trailerBytes = 0;
          } else {
            this.#remaining = size;
            this.#part = 'chunk-data';
          }
          break;
        }
        case 'chunk-crlf': {
          const available = input.end - input.start;
          const b0 = input.buf[input.start];
          if (available >= 1 && b0 !== CR) throw new RequestRejected(400, 'chunk data not followed by CRLF');
          if (available < 2) return false;
          if (input.buf[input.start + 1] !== LF) throw new RequestRejected(400, 'chunk data not followed by CRLF');
          input.consume(2);
          this.#part = 'chunk-size';
          break;
        }
        case 'trailers': {
          const line = input.readLine(MAX_TRAILER_BYTES, 'trailer section too large', 431);
          if (line === undefined) return false;
          this.#trailerBytes += line.length + 2;
          if (this.#trailerBytes > MAX_TRAILER_BYTES) throw new RequestRejected(431, 'trailer section too large');
          if (line === '') return true;
          const colon = line.indexOf(':');
          if (colon <= 0 || !TOKEN_RE.test(line.slice(0, colon)) || BAD_VALUE_RE.test(line.slice(colon + 1))) {
            throw new RequestRejected(400, 'invalid trailer field');
          }
          // RFC 9110 §6.5.1: framing and routing fields never come in trailers;
          // a parser that merged them later could be led to reframe the message.
          if (FORBIDDEN_TRAILERS.has(line.slice(0, colon).toLowerCase())) {
            throw new RequestRejected(400, `${line.slice(0, colon)} is not allowed in trailers`);
          }
          break;
        }
      }
    }
  }

  /**
   * Copies what fits under #keepMax of the next `n` body bytes before they are
   * consumed. Room grows with the bytes that arrive (doubling, never past the
   * body's known size), not with what Content-Length announces, so a client
   * that announces much and sends little holds little.
   */
  #keepBody(input: InputBuffer, n: number): void {
    let kept = this.#kept as Buffer;
    const wanted = Math.min(this.#keepMax, this.#keptBytes + n);
    if (wanted === this.#keptBytes) return;
    if (wanted > kept.length) {
      // total is the Content-Length, or the chunk sizes so far (this chunk included).
      const grown = Buffer.alloc(Math.min(this.#keepMax, this.total, Math.max(wanted, 2 * kept.length)));
      kept.copy(grown, 0, 0, this.#keptBytes);
      this.#kept = kept = grown;
    }
    input.buf.copy(kept, this.#keptBytes, input.start, input.start + (wanted - this.#keptBytes));
    this.#keptBytes = wanted;
  }
}
