// reset-at: the response ends in a TCP reset at one point:
// - before-head: nothing is sent;
// - after-head: the head is sent, then the reset;
// - mid-body: after `afterBytes` body bytes (or at the end of a shorter body).
// The reset waits for the socket to take what was written before it (a reset
// drops anything still queued), then RESET_AFTER_MS more: a reset that lands
// together with unread bytes reads as a plain end to a Node (libuv) client
// (data, then EOF: libuv takes a partial read plus POLLHUP for EOF; curl's
// recv() still sees ECONNRESET), so the client gets a moment to read them and
// then sees the reset.
import type { ResetPhase } from '../../../shared/content/fault-injection/index.js';
import type { HeaderList } from '../../../shared/primitives/headers.js';
import type { ResponseSink } from '../wire.js';
import { CutAfter, Stage, flushHead, type Fault } from './stage.js';

// The phases are named where /mix's grammar reads them (shared/content/fault-injection/mix.ts).
export { RESET_PHASES, type ResetPhase } from '../../../shared/content/fault-injection/index.js';

/** How long the reset follows bytes already sent (see above). */
export const RESET_AFTER_MS = 20;

export function resetAt(phase: ResetPhase, afterBytes = 0): Fault {
  return (next) => new ResetAt(next, phase, afterBytes);
}

class ResetAt extends Stage {
  readonly #cutter: CutAfter;
  #cut = false;

  constructor(
    next: ResponseSink,
    private readonly phase: ResetPhase,
    afterBytes: number,
  ) {
    super(next);
    this.#cutter = new CutAfter(afterBytes, () => this.#reset());
  }

  protected override passHead(status: number, headers: HeaderList, reason: string | undefined): void {
    if (this.phase === 'before-head') return this.#reset();
    this.next.head(status, headers, reason);
    this.#afterHead();
  }

  protected override passRawHead(text: string): void {
    if (this.phase === 'before-head') return this.#reset();
    this.next.rawHead(text);
    this.#afterHead();
  }

  protected override passWriteRaw(chunk: Buffer | string, headStatus: number | undefined): boolean {
    if (this.#cut) return true;
    if (this.phase === 'before-head') {
      this.#reset();
      return true;
    }
    return this.next.writeRaw(chunk, headStatus);
  }

  protected override passWrite(chunk: Buffer | string): boolean {
    if (this.#cut) return true;
    return this.#cutter.write(this.next, chunk);
  }

  protected override passEnd(): void {
    if (!this.#cut) this.#reset();
  }

  #afterHead(): void {
    if (this.phase !== 'after-head') return;
    flushHead(this.next);
    this.#reset();
  }

  #reset(): void {
    this.#cut = true;
    if (this.phase === 'before-head') {
      this.next.end('reset');
      return;
    }
    this.next.whenWritable(() => this.next.setTimer(RESET_AFTER_MS, () => this.next.end('reset')));
  }
}
