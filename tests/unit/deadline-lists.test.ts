// The connections' deadlines (services/chaos/deadline-lists.ts): one list per
// length under one node timer. A deadline never fires before its time, a
// cancelled one never fires, a re-armed one fires once at its new time, one
// armed by a callback waits for a later pass, and a cancelled first deadline
// does not hold back the one behind it.
import { setTimeout as wait } from 'node:timers/promises';
import t from 'tap';
import { armDeadline, armedDeadlines, cancelDeadline, Deadline } from '../../services/chaos/deadline-lists.js';
import { collectingUncaught, spin } from '../helpers/clock.js';


t.test('deadlines of several lengths fire once each, none before its time', async (t) => {
  const fired: [string, number][] = [];
  const delays: Record<string, number> = { a: 5, b: 12, c: 30, d: 30 };
  for (const [name, ms] of Object.entries(delays)) {
    const armedAt = performance.now();
    armDeadline(new Deadline(), ms, () => fired.push([name, performance.now() - armedAt]));
    spin(1);
  }
  await wait(200);
  t.same(
    fired.map(([name]) => name),
    ['a', 'b', 'c', 'd'],
    'each once, in due order',
  );
  for (const [name, elapsed] of fired) t.ok(elapsed >= (delays[name] as number), `${name} fired after ${elapsed.toFixed(2)} ms, not before ${delays[name]} ms`);
  t.equal(armedDeadlines(), 0, 'nothing left armed');
});

t.test('a deadline armed anywhere in a millisecond never fires short of its length', async (t) => {
  const LENGTH_MS = 2;
  const elapsed: number[] = [];
  const deadline = new Deadline();
  // The lists' timers are unref'd (a socket keeps a server alive): here something else must.
  const keepAlive = setInterval(() => {}, 1000);
  t.teardown(() => clearInterval(keepAlive));
  await new Promise<void>((done) => {
    const next = (i: number): void => {
      if (i === 200) return done();
      spin((i % 10) / 10);
      const armedAt = performance.now();
      armDeadline(deadline, LENGTH_MS, () => {
        elapsed.push(performance.now() - armedAt);
        next(i + 1);
      });
    };
    next(0);
  });
  t.equal(elapsed.length, 200, 'every arming fired');
  t.same(elapsed.filter((ms) => ms < LENGTH_MS), [], `none fired short of ${LENGTH_MS} ms`);
});

t.test('a cancelled deadline never fires; a re-armed one fires its new callback once, at its new time', async (t) => {
  const fired: string[] = [];
  const cancelled = new Deadline();
  const rearmed = new Deadline();
  armDeadline(cancelled, 5, () => fired.push('cancelled'));
  armDeadline(rearmed, 5, () => fired.push('old'));
  cancelDeadline(cancelled);
  const rearmedAt = performance.now();
  let newFiredAfter = -1;
  armDeadline(rearmed, 20, () => {
    newFiredAfter = performance.now() - rearmedAt;
    fired.push('new');
  });
  t.notOk(cancelled.armed, 'a cancelled deadline is not armed');
  t.ok(rearmed.armed, 'a re-armed one is');
  await wait(100);
  t.same(fired, ['new'], 'only the new callback fired, once');
  t.ok(newFiredAfter >= 20, `it waited its 20 ms (${newFiredAfter.toFixed(1)})`);
  t.equal(armedDeadlines(), 0, 'nothing left armed');
});

t.test('with its first deadline cancelled, a list fires the next one at its own time, not later', async (t) => {
  const LENGTH_MS = 40;
  const first = new Deadline();
  const second = new Deadline();
  armDeadline(first, LENGTH_MS, () => t.fail('the cancelled deadline fired'));
  await wait(15);
  const secondArmedAt = performance.now();
  let secondFiredAfter = -1;
  armDeadline(second, LENGTH_MS, () => {
    secondFiredAfter = performance.now() - secondArmedAt;
  });
  cancelDeadline(first);
  await wait(LENGTH_MS + 200);
  t.ok(secondFiredAfter >= LENGTH_MS, `not early (${secondFiredAfter.toFixed(1)} ms)`);
  // Generous: the machine is busy; a list that lost the second one's time would wait for a later arming that never comes.
  t.ok(secondFiredAfter < LENGTH_MS + 150, `not held back by the cancelled one (${secondFiredAfter.toFixed(1)} ms)`);
});

t.test('a deadline armed by a callback of its own list waits for a later pass, and the ones behind it keep their time', async (t) => {
  const LENGTH_MS = 10;
  const order: string[] = [];
  const a = new Deadline();
  const b = new Deadline();
  const again = new Deadline();
  let againFiredAfter = -1;
  armDeadline(a, LENGTH_MS, () => {
    order.push('a');
    const armedAt = performance.now();
    armDeadline(again, LENGTH_MS, () => {
      againFiredAfter = performance.now() - armedAt;
      order.push('again');
    });
  });
  spin(2);
  armDeadline(b, LENGTH_MS, () => order.push('b'));
  await wait(150);
  t.same(order, ['a', 'b', 'again'], 'b (armed first) before the one a armed');
  t.ok(againFiredAfter >= LENGTH_MS, `the one armed by a callback waited its ${LENGTH_MS} ms (${againFiredAfter.toFixed(1)})`);
});

t.test('a callback that throws leaves the ones behind it armed, and they still fire', async (t) => {
  const fired: string[] = [];
  const thrown = await collectingUncaught(async () => {
    armDeadline(new Deadline(), 5, () => {
      fired.push('thrower');
      throw new Error('deadline failed');
    });
    armDeadline(new Deadline(), 5, () => fired.push('after'));
    await wait(100);
  });
  t.equal(thrown.length, 1, 'the error reached the process');
  t.same(fired, ['thrower', 'after'], 'the next deadline fired');
  t.equal(armedDeadlines(), 0, 'nothing left armed');
});
