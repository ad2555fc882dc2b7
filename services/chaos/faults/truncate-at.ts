// truncate-at: the first `at` body bytes pass, then the response ends with
// `action` (a clean FIN by default), whatever its framing promised. A body
// shorter than `at` is not cut.
import type { EndAction, ResponseSink } from '../wire.js';
import { Stage, asBytes, type Fault } from './stage.js';

export function truncateAt(at: number, action: EndAction = 'close'): Fault {
  return (next) => new TruncateAt(next, at, action);
}

class TruncateAt extends Stage {
  #sent = 0;

  constructor(
    next: ResponseSink,
    private readonly at: number,
    private readonly action: EndAction,
  ) {
    super(next);
  }

  protected override passWrite(chunk: Buffer | string): boolean {
    const room = this.at - this.#sent;
    if (chunk.length < room) {
      this.#sent += chunk.length;
      return this.next.write(chunk);
    }
    this.#sent = this.at;
    this.next.write(asBytes(chunk).subarray(0, room));
    this.next.end(this.action);
    return true;
  }
}
