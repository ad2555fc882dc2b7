// The chaos parser's repeat fast path: a head that repeats the connection's
// previous head byte for byte is the same request, handed on unparsed.

/**
 * The longest head kept to recognise its repeat: clients' heads are far
 * shorter (wrk 40 bytes, curl 80, a browser under 1 KiB), and an idle
 * connection keeps its last one.
 */
const MAX_REMEMBERED_HEAD = 2048;

/** The last request without a body or capture, and the head it was parsed from. */
export class RepeatedHead<R> {
  #head: string | undefined;
  #request: R | undefined;

  /** The request `head` was parsed into last time, when it repeats the kept head. */
  match(head: string): R | undefined {
    return head === this.#head ? this.#request : undefined;
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
