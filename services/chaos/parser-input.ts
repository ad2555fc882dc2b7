// The chaos parser's unparsed input: a window on the socket's chunk while it
// can be parsed in place, a buffer of its own once a request spans chunks.
import { RequestRejected, type RejectStatus } from './parser-types.js';

export const EMPTY = Buffer.alloc(0);
export const CR = 0x0d;
export const LF = 0x0a;

export class InputBuffer {
  /** Unparsed input: bytes start..end of buf (a view while owned is false). */
  buf: Buffer = EMPTY;
  start = 0;
  end = 0;
  #owned = false;

  /** Bytes received and not yet parsed. */
  get length(): number {
    return this.end - this.start;
  }

  /** The unparsed bytes (a view, valid until the next append). */
  get pending(): Buffer {
    return this.buf.subarray(this.start, this.end);
  }

  /** Drops everything, and the reference to the last chunk. */
  clear(): void {
    this.buf = EMPTY;
    this.start = this.end = 0;
    this.#owned = false;
  }

  /** Appends without re-copying what is pending on every push (byte-by-byte input stays linear). */
  append(chunk: Buffer): void {
    const pending = this.end - this.start;
    if (pending === 0) {
      // Common case: parse straight from the socket's chunk.
      this.buf = chunk;
      this.start = 0;
      this.end = chunk.length;
      this.#owned = false;
      return;
    }
    const needed = pending + chunk.length;
    if (this.#owned && this.end + chunk.length <= this.buf.length) {
      chunk.copy(this.buf, this.end);
      this.end += chunk.length;
      return;
    }
    if (this.#owned && needed <= this.buf.length) {
      this.buf.copyWithin(0, this.start, this.end);
    } else {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * pending, 4096));
      this.buf.copy(grown, 0, this.start, this.end);
      this.buf = grown;
      this.#owned = true;
    }
    this.start = 0;
    this.end = pending;
    chunk.copy(this.buf, this.end);
    this.end += chunk.length;
  }

  consume(n: number): void {
    this.start += n;
    // Drop the reference so an idle connection holds no input buffer.
    if (this.start === this.end) this.clear();
  }

  /** One CRLF-terminated line of chunked framing; bare LF is refused. `tooLongStatus` answers a line over `limit`. */
  readLine(limit: number, tooLong: string, tooLongStatus: RejectStatus): string | undefined {
    const pending = this.pending;
    const lf = pending.indexOf(LF);
    if (lf === -1) {
      if (pending.length > limit) throw new RequestRejected(tooLongStatus, tooLong);
      const cr = pending.indexOf(CR);
      if (cr !== -1 && cr + 1 < pending.length) throw new RequestRejected(400, 'bare CR in chunked framing');
      return undefined;
    }
    if (lf > limit) throw new RequestRejected(tooLongStatus, tooLong);
    if (lf === 0 || pending[lf - 1] !== CR) throw new RequestRejected(400, 'bare LF in chunked framing');
    const line = pending.toString('latin1', 0, lf - 1);
    this.consume(lf + 1);
    return line;
  }
}
