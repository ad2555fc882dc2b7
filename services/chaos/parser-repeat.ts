// The chaos parser's repeat fast path: a head that repeats the connection's
// previous head byte for byte is the same request, handed on unparsed.
import { CR, LF } from './parser-input.js';

/**
 * The longest head kept to recognise its repeat: clients' heads are far
 * shorter (wrk 40 bytes, curl 80, a browser under 1 KiB), and an idle
 * connection keeps its last one.
 */
const MAX_REMEMBERED_HEAD = 2048;

/** The longest head matchAt compares where it lies (wrk's is 40 bytes, autocannon's 90; a browser's 500 compares faster as a string). */
const MAX_BYTEWISE_HEAD = 128;

/** The last request without a body or capture, and the head it was parsed from. */
export class RepeatedHead<R> {
  #head: string | undefined;
  #request: R | undefined;

  /** The request `head` was parsed into last time, when it repeats the kept head. */
  match(head: string): R | undefined {
    return head === this.#head ? this.#request : undefined;
  }

  /**
   * The kept request, when `buf[start..end)` opens with the kept head and its
   * blank line: compared byte for byte where it lies, so a repeat of a short
   * head makes no string (undefined for a longer one: the caller compares it
   * as a string); a match takes `matchedBytes`. A kept head holds no
   * blank line and ends in none of CR, LF (find() returned it whole, and its
   * line ends were judged), so a blank line right after it is the first one in
   * the input.
   */
  matchAt(buf: Uint8Array, start: number, end: number): R | undefined {
    const head = this.#head;
    if (head === undefined) return undefined;
    const length = head.length;
    // A longer head compares faster as a string (native copy and compare) than byte by byte here.
    if (length > MAX_BYTEWISE_HEAD) return undefined;
    const blank = start + length;
    if (end - start < length + 4 || buf[blank] !== CR || buf[blank + 1] !== LF || buf[blank + 2] !== CR || buf[blank + 3] !== LF) return undefined;
    for (let i = 0; i < length; i++) if (buf[start + i] !== head.charCodeAt(i)) return undefined;
    return this.#request;
  }

  /** The bytes a match by matchAt takes: the kept head and its blank line. */
  get matchedBytes(): number {
    return (this.#head?.length ?? 0) + 4;
  }

  /**
   * Keeps `head` and its request for the next match; `head` undefined (a
   * request with a body or a capture, whose repeat is not the same request)
   * or a long one forgets the last.
   */
  keep(head: string | undefined, request: R): void {
    const kept = head !== undefined && head.length <= MAX_REMEMBERED_HEAD ? head : undefined;
    this.#head = kept;
    this.#request = kept === undefined ? undefined : request;
  }

  forget(): void {
    this.#head = this.#request = undefined;
  }
}
