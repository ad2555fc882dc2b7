// garbage: instead of the head, `n` seeded bytes (the same seed, the same
// bytes: DESIGN §6), then a FIN. Sent for HEAD too: nothing here is framed.
// With n = 0 nothing at all is sent (/mix's `garbage:0`, once `empty`).
import { seededBytes } from '../../../shared/primitives/seed.js';
import type { ResponseSink } from '../wire.js';
import { Stage, type Fault } from './stage.js';

export function garbage(n: number, seed: string): Fault {
  return (next) => new Garbage(next, n, seed);
}

class Garbage extends Stage {
  constructor(
    next: ResponseSink,
    private readonly n: number,
    private readonly seed: string,
  ) {
    super(next);
  }

  protected override passHead(): void {
    this.#spew();
  }

  protected override passRawHead(): void {
    this.#spew();
  }

  protected override passWriteRaw(): boolean {
    this.#spew();
    return true;
  }

  #spew(): void {
    if (this.n > 0) this.next.writeRaw(seededBytes(this.seed, this.n));
    this.next.end('close');
  }
}
