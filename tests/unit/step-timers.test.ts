// The one timer structure under every response's scheduled steps
// (services/chaos/step-timers.ts): steps run in due order, never early, a
// cancelled or re-armed step never runs its old callback, a step armed by a
// callback waits for a later pass, and an empty heap keeps no node timer.
import { setTimeout as wait } from 'node:timers/promises';
import t from 'tap';
import { armedSteps, armStep, cancelStep, Step } from '../../services/chaos/step-timers.js';
import { collectingUncaught, spin } from '../helpers/clock.js';


t.test('steps run in due order, none before its time', async (t) => {
  const ran: [string, number][] = [];
  const armedAt = performance.now();
  const delays: Record<string, number> = { c: 30, a: 5, d: 30, b: 12 };
  for (const [name, ms] of Object.entries(delays)) armStep(new Step(), ms, () => ran.push([name, performance.now() - armedAt]));
  await wait(200);
  t.same(ran.map(([name]) => name).slice(0, 2), ['a', 'b'], 'earliest first');
  t.same(new Set(ran.map(([name]) => name)), new Set(['a', 'b', 'c', 'd']), 'every step ran once');
  for (const [name, elapsed] of ran) t.ok(elapsed >= (delays[name] as number), `${name} ran after ${elapsed.toFixed(2)} ms, not before ${delays[name]} ms`);
  t.equal(armedSteps(), 0, 'nothing left armed');
});

t.test('a step armed anywhere in a millisecond never runs short of its delay', async (t) => {
  const DELAY_MS = 2;
  const elapsed: number[] = [];
  const step = new Step();
  await new Promise<void>((done) => {
    const next = (i: number): void => {
      if (i === 200) return done();
      spin((i % 10) / 10);
      const armedAt = performance.now();
      armStep(step, DELAY_MS, () => {
        elapsed.push(performance.now() - armedAt);
        next(i + 1);
      });
    };
    next(0);
  });
  t.same(elapsed.filter((ms) => ms < DELAY_MS), [], `none ran short of ${DELAY_MS} ms`);
});

t.test('a cancelled step never runs; a re-armed one runs its new callback once, at its new time', async (t) => {
  const ran: string[] = [];
  const cancelled = new Step();
  const rearmed = new Step();
  armStep(cancelled, 5, () => ran.push('cancelled'));
  armStep(rearmed, 5, () => ran.push('old'));
  cancelStep(cancelled);
  const rearmedAt = performance.now();
  let newRanAfter = -1;
  armStep(rearmed, 20, () => {
    newRanAfter = performance.now() - rearmedAt;
    ran.push('new');
  });
  t.notOk(cancelled.armed, 'a cancelled step is not armed');
  t.ok(rearmed.armed, 'a re-armed step is');
  await wait(12);
  // On a busy machine the wait may outlast 20 ms too: then the new callback has run, never before its time.
  t.same(ran.filter((name) => name !== 'new'), [], 'nothing ran at the old due time');
  if (ran.includes('new')) t.ok(newRanAfter >= 20, `the new callback waited its 20 ms (${newRanAfter.toFixed(1)})`);
  await wait(60);
  t.same(ran, ['new'], 'only the new callback, once');
  t.equal(armedSteps(), 0);
});

t.test('a step cancelled by an earlier callback of the same pass does not run', async (t) => {
  const ran: string[] = [];
  const first = new Step();
  const second = new Step();
  armStep(first, 5, () => {
    ran.push('first');
    cancelStep(second);
  });
  armStep(second, 5.001, () => ran.push('second'));
  spin(8);
  await wait(30);
  t.same(ran, ['first'], 'the second was cancelled before its turn');
});

t.test('a step armed with 0 ms by a callback runs on a later pass, not in the same one', async (t) => {
  const step = new Step();
  let runs = 0;
  let sameTurn = true;
  armStep(step, 1, () => {
    runs++;
    armStep(step, 0, () => {
      runs++;
      t.notOk(sameTurn, 'ran after the pass that armed it returned');
    });
    sameTurn = true;
    setImmediate(() => (sameTurn = false));
  });
  await wait(50);
  t.equal(runs, 2, 'both ran');
});

t.test('an empty heap keeps no timer: the process may exit', async (t) => {
  const step = new Step();
  armStep(step, 60_000, () => t.fail('must not run'));
  t.equal(armedSteps(), 1);
  cancelStep(step);
  t.equal(armedSteps(), 0);
  // tap would wait out a ref'd 60 s timer; the test ending now shows none is left.
});

t.test('a callback that throws leaves the pass\'s other steps to run on the next pass', async (t) => {
  const ran: string[] = [];
  const thrown = await collectingUncaught(async () => {
    armStep(new Step(), 5, () => {
      ran.push('thrower');
      throw new Error('step failed');
    });
    armStep(new Step(), 5, () => ran.push('second'));
    armStep(new Step(), 5, () => ran.push('third'));
    await wait(100);
  });
  t.equal(thrown.length, 1, 'the error is not swallowed');
  t.same(new Set(ran), new Set(['thrower', 'second', 'third']), 'the steps after it in the same pass still ran');
  t.equal(armedSteps(), 0, 'nothing left armed');
});
