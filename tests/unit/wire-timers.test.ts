// A response's timers (a /slow delay, a drip's pauses) never fire before their
// delay has passed. node's own timers can: they count whole milliseconds of
// the loop's clock, so one set 0.9 ms into a millisecond may fire up to 0.9 ms
// short of its delay.
import type { Socket } from 'node:net';
import t from 'tap';
import { Wire, type WireOwner } from '../../services/chaos/wire.js';
import { spin } from '../helpers/clock.js';

const socket = { writableNeedDrain: false, write: () => true, cork() {}, uncork() {} } as unknown as Socket;
const owner: WireOwner = { finished() {} };

t.test('a timer never fires before its delay, wherever in a millisecond it was set', async (t) => {
  const DELAY_MS = 2;
  const ROUNDS = 300;
  const elapsed: number[] = [];
  await new Promise<void>((done) => {
    const next = (i: number): void => {
      if (i === ROUNDS) return done();
      // Set from the timers phase with the loop idle in between, the way a chain of drip pauses is.
      spin((i % 10) / 10);
      const wire = new Wire(socket, owner, false);
      const setAt = performance.now();
      wire.setTimer(DELAY_MS, () => {
        elapsed.push(performance.now() - setAt);
        next(i + 1);
      });
    };
    next(0);
  });
  const short = elapsed.filter((ms) => ms < DELAY_MS);
  t.equal(elapsed.length, ROUNDS, 'every timer fired');
  t.same(short, [], `none fired short of ${DELAY_MS} ms`);
  t.ok(Math.max(...elapsed) < 1000, 'and none hung (a generous bound)');
});

t.test("a closed wire's timer runs nothing", async (t) => {
  const wire = new Wire(socket, owner, false);
  let fired = false;
  wire.setTimer(1, () => (fired = true));
  wire.socketClosed();
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.notOk(fired, 'a closed wire runs nothing');
});
