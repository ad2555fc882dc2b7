// The client exam on the embedded default without Redis (docs/exam.md, "The
// embedded default"): each host keeps its own memory, and the chaos host's
// entries reach the exam's log in the control process: by a direct call in
// the in-process embedding (start()), through the supervisor's IPC under
// `make up STACK=embedded`. The reference client passes every step of every
// profile on both, the chaos host's steps included.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { start } from '../../../services/embed.js';
import { PROFILES } from '../../../shared/exam/profiles.js';
import { takeExam } from '../../helpers/exam-clients.js';
import { examReport, openExam } from '../../helpers/exam-stack.js';
import { freePort, spawnNode } from '../../helpers/process.js';

const PROFILE_NAMES = Object.keys(PROFILES);

/** Opens an exam of every profile on `hub`, takes each with the reference client, and returns the steps that did not pass. */
async function everyProfile(hub: string): Promise<string[]> {
  const exams = await Promise.all(PROFILE_NAMES.map((profile) => openExam(hub, profile)));
  await Promise.all(exams.map((exam) => takeExam('good', exam)));
  await sleep(500); // the last entries are written (and relayed) as their exchanges end
  const failing: string[] = [];
  for (const exam of exams) {
    const report = await examReport(exam.report_url);
    for (const s of report.steps) if (s.verdict !== 'pass') failing.push(`${exam.profile}/${s.name}: ${s.verdict}, ${s.observed}`);
  }
  return failing;
}

t.test('in process (start()): stores of their own, the chaos steps recorded in the hub\'s', async (t) => {
  // Every profile at once from one address, on EXAM_MAX_OPEN_PER_IP's default.
  const running = await start({ env: {} });
  t.teardown(() => running.close());
  t.same(await everyProfile(running.hubUrl), [], 'every step of every profile passes');
});

t.test('make up STACK=embedded: three processes, the chaos steps relayed through the supervisor', async (t) => {
  const [chaos, control, bots] = [await freePort(), await freePort(), await freePort()];
  const env = { STACK: 'embedded', CHAOS_PORT: String(chaos), CONTROL_PORT: String(control), BOTS_PORT: String(bots), RATE_LIMIT_GENERAL: '0', LOG_LEVEL: 'warn' };
  const svc = spawnNode('services/main.js', env);
  t.teardown(() => svc.child.kill('SIGKILL'));
  const deadline = Date.now() + 60_000; // three processes start one after another
  while (!svc.stdout().includes('Ctrl-C stops all three') && Date.now() < deadline) await sleep(50);
  t.match(svc.stdout(), 'in-memory store', 'no Redis: each process its own memory');
  t.same(await everyProfile(`http://localhost:${control}`), [], 'every step of every profile passes');
  svc.child.kill('SIGINT');
  t.same(await svc.exited, { code: 0, signal: null }, 'the supervisor exits 0');
});
