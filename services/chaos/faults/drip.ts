// drip: body bytes leave in `chunk`-byte slices `intervalMs` apart, on an
// absolute schedule from the first body byte (a late timer does not push every
// later slice back), each one after the socket has drained. The head is not
// delayed; HEAD responses pass straight through.
import type { ResponseSink } from '../wire.js';
import { Stage, asBytes, type Fault } from './stage.js';

export function drip(chunk: number, intervalMs: number): Fault {
  return (next) => new Drip(next, chunk, intervalMs);
}

class Drip extends Stage {
  #start = 0;
  #slices = 0;
  #rest: Buffer | undefined;

  constructor(
    next: ResponseSink,
    private readonly chunk: number,
    private readonly intervalMs: number,
  ) {
    super(next);
  }

  protected override passWrite(chunk: Buffer | string): boolean {
    if (this.next.headOnly) return this.next.write(chunk);
    if (this.#slices === 0) this.#start = performance.now();
    this.#rest = asBytes(chunk);
    return this.#sendSlice();
  }

  /** Sends the next slice; while more remain the stage is paused and the next one is scheduled. */
  #sendSlice(): boolean {
    const rest = this.#rest as Buffer;
    const slice = rest.subarray(0, this.chunk);
    this.#rest = rest.subarray(slice.length);
    this.#slices++;
    const writable = this.next.write(slice);
    if (this.#rest.length === 0) {
      this.#rest = undefined;
      this.resume();
      return writable;
    }
    this.pause();
    this.next.whenWritable(() => {
      const due = this.#start + this.#slices * this.intervalMs - performance.now();
      this.next.setTimer(Math.max(0, due), () => this.#sendSlice());
    });
    return false;
  }
}
