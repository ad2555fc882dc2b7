// delay-first-byte: nothing reaches the wire until `ms` after the stage is
// built. An endpoint that waits on `whenWritable` builds its response when the
// delay is over (its Date, its Connection line); one that writes at once is
// held and sent whole when the delay ends.
import type { ResponseSink } from '../wire.js';
import { Stage, type Fault } from './stage.js';

export function delayFirstByte(ms: number): Fault {
  return (next) => {
    const stage = new DelayFirstByte(next);
    next.setTimer(ms, () => stage.release());
    return stage;
  };
}

class DelayFirstByte extends Stage {
  constructor(next: ResponseSink) {
    super(next);
    this.pause();
  }

  release(): void {
    this.resume();
  }
}
