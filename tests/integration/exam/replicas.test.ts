// An exam across two replicas sharing one real redis-server: opened on one
// replica's hub, its steps taken on the other replica's chaos host, graded
// on either hub alike; the per-client cap on open exams counts both.
import t, { type Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisStore } from '../../../shared/store/redis.js';
import { examReport, openExam, startExamStack, verdicts, type OpenedExam } from '../../helpers/exam-stack.js';
import { takeExam } from '../../helpers/exam-clients.js';
import { startRedis } from '../../helpers/redis.js';

async function redisStore(t: Test, url: string): Promise<RedisStore> {
  const store = new RedisStore({ url, prefix: 'exam-replicas:' });
  t.teardown(() => store.close());
  if (!(await store.whenReady(5000))) throw new Error('RedisStore did not connect');
  return store;
}

/** The exam with every step URL moved to `port` (the other replica's chaos or control process). */
function onReplica(exam: OpenedExam, ports: ReadonlyMap<string, string>): OpenedExam {
  return {
    ...exam,
    steps: exam.steps.map((step) => {
      const url = new URL(step.url);
      url.port = ports.get(url.port) ?? url.port;
      return { ...step, url: url.href };
    }),
  };
}

t.test('opened on one replica, taken on the other, graded the same on both', async (t) => {
  const redis = await startRedis(t);
  const a = await startExamStack(t, await redisStore(t, redis.url), { EXAM_MAX_OPEN_PER_IP: '3' });
  const b = await startExamStack(t, await redisStore(t, redis.url), { EXAM_MAX_OPEN_PER_IP: '3' });
  const exam = await openExam(a.hub, 'retries');
  const moved = onReplica(exam, new Map([[String(a.chaosPort), String(b.chaosPort)], [String(a.controlPort), String(b.controlPort)]]));
  t.ok(moved.steps.every((s) => s.url.includes(`:${b.chaosPort}/`)), 'every step goes to replica b');
  await takeExam('good', moved);
  await sleep(300);
  const onA = await examReport(exam.report_url);
  const onB = await examReport(`${b.hub}/exam/${exam.id}`);
  t.same(verdicts(onA), { 'fail-first': 'pass', 'retry-after-seconds': 'pass', 'retry-after-date': 'pass', 'rate-limit-429': 'pass', 'post-503': 'pass' }, 'recorded by b, graded by a');
  const graded = (report: typeof onA): string[] => report.steps.map((s) => `${s.name} ${s.verdict}: ${s.observed}`);
  t.same(graded(onB), graded(onA), 'the same grade on b');

  // The cap counts the client's exams on every replica: two more (one on each), then neither opens one.
  await openExam(b.hub, 'timeouts');
  await openExam(a.hub, 'caching');
  t.equal((await fetch(`${b.hub}/exam?profile=streams`, { method: 'POST' })).status, 429, 'the fourth, on b, is refused');
  t.equal((await fetch(`${a.hub}/exam?profile=streams`, { method: 'POST' })).status, 429, 'and on a');
});
