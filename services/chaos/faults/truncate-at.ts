// truncate-at: the first `at` body bytes pass, then the response ends with
// `action` (a clean FIN by default), whatever its framing promised. A body
// shorter than `at` is not cut.
import type { EndAction, ResponseSink } from '../wire.js';
import { CutAfter, Stage, type Fault } from './stage.js';

export function truncateAt(at: number, action: EndAction = 'close'): Fault {
  return (next) => new TruncateAt(next, at, action);
}

class TruncateAt extends Stage {
  readonly #cutter: CutAfter;

  constructor(
    next: ResponseSink,
    at: number,
    action: EndAction,
  ) {
    super(next);
    this.#cutter = new CutAfter(at, () => this.next.end(action));
  }

  protected override passWrite(chunk: Buffer | string): boolean {
    return this.#cutter.write(this.next, chunk);
  }
}
