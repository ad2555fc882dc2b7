// The frame of the composable wire faults (issue 7 §5, the toxiproxy lesson):
// a fault is a stage that wraps the sink below it, so faults stack, and an
// endpoint writes its honest response to the top of the stack. A stage that
// waits pauses: what arrives from above meanwhile is kept, in order, and
// replayed when it resumes; every wait goes through the wire, so it dies
// with the socket.
import type { HeaderList } from '../../../shared/primitives/headers.js';
import type { EndAction, ResponseSink } from '../wire.js';

/** One wire fault: given the sink below, the sink the layer above writes to. */
export type Fault = (next: ResponseSink) => ResponseSink;

/**
 * The sink an endpoint writes its honest response to: `faults[0]` sees the
 * response first, the last fault writes to `wire`. No faults: `wire` itself.
 */
export function compose(wire: ResponseSink, faults: readonly Fault[]): ResponseSink {
  let sink = wire;
  for (let i = faults.length - 1; i >= 0; i--) sink = (faults[i] as Fault)(sink);
  return sink;
}

type Held = () => void;

/**
 * A stage that passes everything through to `next`; a fault overrides the
 * `pass*` hooks it changes. The public methods keep the bookkeeping: one head,
 * nothing after the end, and what arrives while the stage is paused is held.
 */
export class Stage implements ResponseSink {
  #headWritten = false;
  #ended = false;
  #paused = false;
  #held: Held[] | undefined;
  #waiting: (() => void)[] | undefined;

  constructor(protected readonly next: ResponseSink) {}

  get headOnly(): boolean {
    return this.next.headOnly;
  }

  get closed(): boolean {
    return this.next.closed;
  }

  /** True once the layer above wrote a head, even while this stage still holds it. */
  get headWritten(): boolean {
    return this.#headWritten || this.next.headWritten;
  }

  /** True once the layer above ended, or a stage below ended the response itself. */
  get ended(): boolean {
    return this.#ended || this.next.ended;
  }

  head(status: number, headers: HeaderList, reason?: string): void {
    this.#claimHead();
    if (this.#holding()) this.#hold(() => this.passHead(status, headers, reason));
    else this.passHead(status, headers, reason);
  }

  rawHead(text: string): void {
    this.#claimHead();
    if (this.#holding()) this.#hold(() => this.passRawHead(text));
    else this.passRawHead(text);
  }

  write(chunk: Buffer | string): boolean {
    if (this.ended) return true;
    if (!this.#holding()) return this.passWrite(chunk);
    this.#hold(() => this.passWrite(chunk));
    return false;
  }

  writeRaw(chunk: Buffer | string, headStatus?: number): boolean {
    if (this.ended) return true;
    this.#headWritten = true;
    if (!this.#holding()) return this.passWriteRaw(chunk, headStatus);
    this.#hold(() => this.passWriteRaw(chunk, headStatus));
    return false;
  }

  end(action: EndAction = 'keep-alive'): void {
    if (this.ended) return;
    this.#ended = true;
    if (this.#holding()) this.#hold(() => this.passEnd(action));
    else this.passEnd(action);
  }

  setTimer(ms: number, fn: () => void): void {
    this.next.setTimer(ms, fn);
  }

  whenWritable(fn: () => void): void {
    if (this.ended) return;
    if (this.#holding()) (this.#waiting ??= []).push(fn);
    else this.next.whenWritable(fn);
  }

  onClose(listener: () => void): () => void {
    return this.next.onClose(listener);
  }

  protected passHead(status: number, headers: HeaderList, reason: string | undefined): void {
    this.next.head(status, headers, reason);
  }

  protected passRawHead(text: string): void {
    this.next.rawHead(text);
  }

  protected passWrite(chunk: Buffer | string): boolean {
    return this.next.write(chunk);
  }

  protected passWriteRaw(chunk: Buffer | string, headStatus: number | undefined): boolean {
    return this.next.writeRaw(chunk, headStatus);
  }

  protected passEnd(action: EndAction): void {
    this.next.end(action);
  }

  /** From now on, what arrives from above is held until `resume`. */
  protected pause(): void {
    this.#paused = true;
  }

  /** Replays what was held, in order (a replayed step may pause again), then wakes whoever waits to write. */
  protected resume(): void {
    this.#paused = false;
    const held = this.#held;
    while (!this.#paused && held && held.length > 0) (held.shift() as Held)();
    if (this.#paused) return;
    this.#held = undefined;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) for (const fn of waiting) this.whenWritable(fn);
  }

  #holding(): boolean {
    return this.#paused || (this.#held !== undefined && this.#held.length > 0);
  }

  #hold(step: Held): void {
    // Usually one step (the end behind a paused body): a one-slot array, not an empty one grown to 17 by push.
    if (this.#held) this.#held.push(step);
    else this.#held = [step];
  }

  #claimHead(): void {
    if (this.#headWritten) throw new Error('response head already written');
    this.#headWritten = true;
  }
}

/** Body bytes as a Buffer (strings are latin1, as the wire writes them). */
/**
 * Passes body bytes to a sink until `limit` have gone, then cuts the response
 * once: the shared step of the faults that end a body early (truncate-at,
 * close-early, reset-at mid-body). Bytes after the cut are dropped.
 */
export class CutAfter {
  #sent = 0;

  constructor(
    private readonly limit: number,
    private readonly cut: () => void,
  ) {}

  write(next: ResponseSink, chunk: Buffer | string): boolean {
    const room = this.limit - this.#sent;
    if (chunk.length < room) {
      this.#sent += chunk.length;
      return next.write(chunk);
    }
    this.#sent = this.limit;
    next.write(asBytes(chunk).subarray(0, room));
    this.cut();
    return true;
  }
}

export function asBytes(chunk: Buffer | string): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
}

const EMPTY = Buffer.alloc(0);

/** Puts a held head on the socket now (a reset would drop it), even for HEAD. */
export function flushHead(next: ResponseSink): void {
  next.writeRaw(EMPTY);
}
