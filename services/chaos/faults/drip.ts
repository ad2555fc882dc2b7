// drip: body bytes leave in `chunk`-byte slices `intervalMs` apart, on an
// absolute schedule from the first body byte (a late timer does not push every
// later slice back; the first slice is not held for the turn's batch), each one
// after the socket has drained. The head is not
// delayed; HEAD responses pass straight through.
import type { ResponseSink } from '../wire.js';
import { unbatched } from '../turn-writes.js';
import { Stage, asBytes, type Fault } from './stage.js';

export function drip(chunk: number, intervalMs: number): Fault {
  return (next) => new Drip(next, chunk, intervalMs);
}

class Drip extends Stage {
  #start = 0;
  #slices = 0;
  /** The body being sent, and how far: one buffer for the whole stream, not a new view per slice. */
  #body: Buffer | undefined;
  #sent = 0;
  // Made once per stream: a held stream re-arms them every interval, and one
  // closure per slice lived long enough to be promoted (step-timers.ts says why that costs).
  readonly #schedule = (): void => {
    const due = this.#start + this.#slices * this.intervalMs - performance.now();
    this.next.setTimer(Math.max(0, due), this.#sendNext);
  };
  readonly #sendNext = (): void => {
    this.#sendSlice();
  };

  constructor(
    next: ResponseSink,
    private readonly chunk: number,
    private readonly intervalMs: number,
  ) {
    super(next);
  }

  protected override passWrite(chunk: Buffer | string): boolean {
    if (this.next.headOnly) return this.next.write(chunk);
    this.#body = asBytes(chunk);
    this.#sent = 0;
    if (this.#slices > 0) return this.#sendSlice();
    // The schedule starts as the first slice leaves, so it leaves now, not with the turn's batch (turn-writes.ts).
    return unbatched(() => {
      this.#start = performance.now();
      return this.#sendSlice();
    });
  }

  /** Sends the next slice; while more remain the stage is paused and the next one is scheduled. */
  #sendSlice(): boolean {
    const body = this.#body as Buffer;
    const end = Math.min(body.length, this.#sent + this.chunk);
    const slice = body.subarray(this.#sent, end);
    this.#sent = end;
    this.#slices++;
    const writable = this.next.write(slice);
    if (end === body.length) {
      this.#body = undefined;
      this.resume();
      return writable;
    }
    this.pause();
    this.next.whenWritable(this.#schedule);
    return false;
  }
}
