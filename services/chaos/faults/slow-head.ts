// slow-head: the head itself trickles: `chunk` bytes every `intervalMs` ms on
// an absolute schedule, each after the socket drained; the body waits for
// the head's last byte. The status is recorded as the head's own.
import { formatHead, reasonPhrase, type HeaderList } from '../../../shared/primitives/headers.js';
import { statusOfHead, type ResponseSink } from '../wire.js';
import { unbatched } from '../turn-writes.js';
import { Stage, type Fault } from './stage.js';

export function slowHead(chunk: number, intervalMs: number): Fault {
  return (next) => new SlowHead(next, chunk, intervalMs);
}

class SlowHead extends Stage {
  #head = Buffer.alloc(0);
  #status: number | undefined;
  #start = 0;
  #pieces = 0;

  constructor(
    next: ResponseSink,
    private readonly chunk: number,
    private readonly intervalMs: number,
  ) {
    super(next);
  }

  protected override passHead(status: number, headers: HeaderList, reason: string | undefined): void {
    this.#trickle(formatHead(status, reason ?? reasonPhrase(status), headers), status);
  }

  protected override passRawHead(text: string): void {
    this.#trickle(text, statusOfHead(text));
  }

  #trickle(text: string, status: number | undefined): void {
    this.#head = Buffer.from(text, 'latin1');
    this.#status = status;
    this.pause();
    // The schedule starts as the first piece leaves, so it leaves now, not with the turn's batch (turn-writes.ts).
    unbatched(() => {
      this.#start = performance.now();
      this.#sendPiece();
    });
  }

  #sendPiece(): void {
    const piece = this.#head.subarray(0, this.chunk);
    this.#head = this.#head.subarray(piece.length);
    this.#pieces++;
    this.next.writeRaw(piece, this.#status);
    if (this.#head.length === 0) {
      this.resume();
      return;
    }
    this.next.whenWritable(() => {
      const due = this.#start + this.#pieces * this.intervalMs - performance.now();
      this.next.setTimer(Math.max(0, due), () => this.#sendPiece());
    });
  }
}
