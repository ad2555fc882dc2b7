// close-early: the body is delimited by the close (RFC 9112 §6.3): the head
// loses its Content-Length and says Connection: close, `bytes` body bytes pass
// (all of them by default), then a clean FIN. The client gets a clean end and
// a body cut short that nothing marks as short.
import type { HeaderList } from '../../../shared/primitives/headers.js';
import type { ResponseSink } from '../wire.js';
import { hasHeaderLine, insertHeaderLines, removeHeaderLines } from './head-text.js';
import { CutAfter, Stage, type Fault } from './stage.js';

export function closeEarly(bytes: number = Number.POSITIVE_INFINITY): Fault {
  return (next) => new CloseEarly(next, bytes);
}

class CloseEarly extends Stage {
  readonly #cutter: CutAfter;

  constructor(
    next: ResponseSink,
    bytes: number,
  ) {
    super(next);
    this.#cutter = new CutAfter(bytes, () => this.next.end('close'));
  }

  protected override passHead(status: number, headers: HeaderList, reason: string | undefined): void {
    const out = headers.filter(([name]) => name.toLowerCase() !== 'content-length');
    if (!out.some(([name]) => name.toLowerCase() === 'connection')) {
      // Where our heads put it: after Date (chaosHead's order).
      const date = out.findIndex(([name]) => name.toLowerCase() === 'date');
      out.splice(date === -1 ? out.length : date + 1, 0, ['Connection', 'close']);
    }
    this.next.head(status, out, reason);
  }

  protected override passRawHead(text: string): void {
    const out = removeHeaderLines(text, 'content-length');
    this.next.rawHead(hasHeaderLine(out, 'connection') ? out : insertHeaderLines(out, [['Connection', 'close']]));
  }

  protected override passWrite(chunk: Buffer | string): boolean {
    return this.#cutter.write(this.next, chunk);
  }

  /** However the layer above ends, a close-delimited body ends with the close. */
  protected override passEnd(): void {
    this.next.end('close');
  }
}
