// The client exam (docs/exam.md) on one chaos and one control process: a
// well-behaved client passes every step of every profile inside the real
// per-IP limit; a bad one fails exactly the steps its faults show; the
// report's three renderings; unknown ids, bad profiles, the flood cap and
// expiry.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROFILES } from '../../../shared/exam/profiles.js';
import { examReport, openExam, startExamStack, verdicts } from '../../helpers/exam-stack.js';
import { takeExam } from '../../helpers/exam-clients.js';

const PROFILE_NAMES = Object.keys(PROFILES);

/** The steps the bad client must fail: all but the redirect kinds, which it follows by the book. */
const BAD_PASSES = new Set(['redirect-302', 'redirect-303', 'redirect-307', 'redirect-308']);

t.test('the reference client passes every step of every profile, inside the default per-IP limit', async (t) => {
  // The real limit (60 a minute per host) stays on: every profile must fit in it.
  const stack = await startExamStack(t, undefined, { RATE_LIMIT_GENERAL: '60' });
  const exams = await Promise.all(PROFILE_NAMES.map((profile) => openExam(stack.hub, profile)));
  await Promise.all(exams.map((exam) => takeExam('good', exam)));
  await sleep(300); // the last entries are written as their exchanges end
  for (const exam of exams) {
    const report = await examReport(exam.report_url);
    const failing = report.steps.filter((s) => s.verdict !== 'pass').map((s) => `${s.name}: ${s.verdict}, ${s.observed}`);
    t.same(failing, [], `${exam.profile}: every step passes`);
    t.equal(report.score, 100, `${exam.profile}: score 100`);
  }
});

t.test('the bad client fails exactly the steps it should', async (t) => {
  const stack = await startExamStack(t);
  const exams = await Promise.all(PROFILE_NAMES.map((profile) => openExam(stack.hub, profile)));
  await Promise.all(exams.map((exam) => takeExam('bad', exam)));
  await sleep(300);
  for (const exam of exams) {
    const report = await examReport(exam.report_url);
    const expected = Object.fromEntries(exam.steps.map((s) => [s.name, BAD_PASSES.has(s.name) ? 'pass' : 'fail']));
    t.same(verdicts(report), expected, `${exam.profile}: ${report.steps.map((s) => `${s.name}=${s.verdict} (${s.observed})`).join('; ')}`);
  }
});
