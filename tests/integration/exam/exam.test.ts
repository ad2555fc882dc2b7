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
  // The real limit (60 a minute per host) stays on: every profile must fit in it. TLS on: the https-downgrade step is in.
  // Every profile at once from one address, on EXAM_MAX_OPEN_PER_IP's default.
  const stack = await startExamStack(t, undefined, { RATE_LIMIT_GENERAL: '60' }, { tls: true });
  const exams = await Promise.all(PROFILE_NAMES.map((profile) => openExam(stack.hub, profile)));
  t.ok(exams.find((e) => e.profile === 'redirects')?.steps.some((s) => s.name === 'https-downgrade' && s.url.startsWith(`https://good.tls.localhost:${stack.tlsPort}/`)), 'the TLS step, on the good host');
  await Promise.all(exams.map((exam) => takeExam('good', exam, stack.tlsRoot)));
  await sleep(300); // the last entries are written as their exchanges end
  for (const exam of exams) {
    const report = await examReport(exam.report_url);
    const failing = report.steps.filter((s) => s.verdict !== 'pass').map((s) => `${s.name}: ${s.verdict}, ${s.observed}`);
    t.same(failing, [], `${exam.profile}: every step passes`);
    t.equal(report.score, 100, `${exam.profile}: score 100`);
  }
});

t.test('the bad client fails exactly the steps it should', async (t) => {
  const stack = await startExamStack(t, undefined, {}, { tls: true });
  const exams = await Promise.all(PROFILE_NAMES.map((profile) => openExam(stack.hub, profile)));
  await Promise.all(exams.map((exam) => takeExam('bad', exam, stack.tlsRoot)));
  await sleep(300);
  for (const exam of exams) {
    const report = await examReport(exam.report_url);
    const expected = Object.fromEntries(exam.steps.map((s) => [s.name, BAD_PASSES.has(s.name) ? 'pass' : 'fail']));
    t.same(verdicts(report), expected, `${exam.profile}: ${report.steps.map((s) => `${s.name}=${s.verdict} (${s.observed})`).join('; ')}`);
  }
});

t.test('the report in JSON, HTML and Markdown; unknown ids, bad profiles and wrong methods are real errors', async (t) => {
  const stack = await startExamStack(t);
  const exam = await openExam(stack.hub, 'caching');
  t.match(exam.id, /^[A-Za-z0-9_-]{22}$/, 'a 22-character id');
  t.equal(exam.report_url, `${stack.hub}/exam/${exam.id}`);
  t.same(exam.steps.map((s) => s.name), ['etag', 'last-modified', 'no-store', 'vary']);
  for (const step of exam.steps) t.ok(step.url.endsWith(`exam=${exam.id}.${step.name}`), `${step.name}: an ordinary URL carrying the exam id`);
  t.ok(Date.parse(exam.expires_at) - Date.now() > 3_590_000, 'expires in an hour');
  const byGet = await fetch(`${stack.hub}/exam/new?profile=streams`);
  t.equal(byGet.status, 201, 'GET /exam/new opens one too');

  // One step taken: the rest are not run yet.
  const etag = exam.steps[0]?.url as string;
  const first = await fetch(etag);
  await fetch(etag, { headers: { 'If-None-Match': first.headers.get('etag') ?? '' } });
  await sleep(200);
  const report = await examReport(exam.report_url);
  t.same(verdicts(report), { etag: 'pass', 'last-modified': 'not-run', 'no-store': 'not-run', vary: 'not-run' });
  t.equal(report.score, 25);

  const html = await fetch(exam.report_url, { headers: { Accept: 'text/html' } });
  t.match(html.headers.get('content-type'), 'text/html');
  t.match(html.headers.get('content-security-policy'), "default-src 'none'", 'the catalog pages\' CSP');
  const page = await html.text();
  t.match(page, '<title>Client exam caching');
  t.match(page, /id="step-etag" data-verdict="pass"/);
  t.match(page, /id="step-vary" data-verdict="not-run"/);
  const markdown = await fetch(`${exam.report_url}.md`);
  t.match(markdown.headers.get('content-type'), 'text/markdown');
  const table = await markdown.text();
  t.match(table, '| step | verdict | observed | expected | fix |');
  t.match(table, /\| etag \| pass \| If-None-Match: "[0-9a-f]+", answered 304 \|/);

  for (const path of ['/exam/AAAAAAAAAAAAAAAAAAAAAA', '/exam/AAAAAAAAAAAAAAAAAAAAAA.md', '/exam/short', `/exam/${exam.id}x`]) {
    const res = await fetch(`${stack.hub}${path}`);
    t.equal(res.status, 404, `${path}: 404`);
    t.same(await res.json(), { error: 'not_found', reason: 'no such exam: it never existed or has expired (exams live EXAM_TTL_SECONDS)' });
    t.equal([...res.headers.keys()].filter((k) => k.startsWith('x-chaos-')).length, 0, 'a real error: no X-Chaos-*');
  }
  const bad = await fetch(`${stack.hub}/exam?profile=nope`, { method: 'POST' });
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: 'invalid_parameter', param: 'profile', accepted: PROFILE_NAMES });
  t.equal((await fetch(`${stack.hub}/exam`, { method: 'POST' })).status, 400, 'no profile: 400');
  const get = await fetch(`${stack.hub}/exam?profile=retries`);
  t.equal(get.status, 405, 'GET /exam is not how one opens');
  t.equal(get.headers.get('allow'), 'POST');
  t.equal((await fetch(exam.report_url, { method: 'POST' })).status, 405, 'a report is read, not posted');
  t.equal((await fetch(`http://127.0.0.1:${stack.controlPort}/exam?profile=retries`, { method: 'POST' })).status, 404, 'only on the hub\'s name');
});

t.test('a flood of exams from one address is refused with the real 429 until the oldest expires; exams expire', async (t) => {
  const stack = await startExamStack(t, undefined, { EXAM_TTL_SECONDS: '2', EXAM_MAX_OPEN_PER_IP: '3' });
  const opened = await Promise.all([1, 2, 3].map(() => openExam(stack.hub, 'retries')));
  const refused = await fetch(`${stack.hub}/exam?profile=retries`, { method: 'POST' });
  t.equal(refused.status, 429, 'the fourth open exam is refused');
  t.equal(refused.headers.get('content-type'), 'application/problem+json');
  t.ok(['1', '2'].includes(refused.headers.get('retry-after') ?? ''), `Retry-After ${refused.headers.get('retry-after')}: until the oldest expires`);
  t.match(await refused.json(), { status: 429, policy: 'exam', detail: /3 open exams/ });
  t.equal([...refused.headers.keys()].filter((k) => k.startsWith('x-chaos-')).length, 0, 'a real limit: no X-Chaos-*');
  // A step recorded, then the exam outlives its TTL: its id is unknown again, and the address may open more.
  await fetch(opened[0]?.steps[0]?.url as string);
  await sleep(100);
  t.equal((await fetch(opened[0]?.report_url as string)).status, 200);
  await sleep(2200);
  t.equal((await fetch(opened[0]?.report_url as string)).status, 404, 'expired: 404');
  t.equal((await fetch(`${stack.hub}/exam?profile=retries`, { method: 'POST' })).status, 201, 'expired exams free their slots');
});

t.test('the default cap: every profile twice from one address, then the real 429', async (t) => {
  // 12 (docs/exam.md): all six profiles, then a retake of each, within an exam's hour; bounded all the same.
  const stack = await startExamStack(t);
  const twice = [...PROFILE_NAMES, ...PROFILE_NAMES];
  t.equal(twice.length, 12, 'six profiles, twice');
  const opened = await Promise.all(twice.map((profile) => fetch(`${stack.hub}/exam?profile=${profile}`, { method: 'POST' })));
  t.same(opened.map((res) => res.status), twice.map(() => 201), 'every profile twice is opened');
  const refused = await fetch(`${stack.hub}/exam?profile=retries`, { method: 'POST' });
  t.equal(refused.status, 429, 'the thirteenth is refused');
  t.match(await refused.json(), { policy: 'exam', detail: /12 open exams/ });
});

t.test('a step refused by the real per-IP limit is said to be, not graded as the client\'s doing', async (t) => {
  // Two a minute per host: the hub's open and read; on chaos, two allowed requests, then the real 429.
  const stack = await startExamStack(t, undefined, { RATE_LIMIT_GENERAL: '2' });
  const exam = await openExam(stack.hub, 'timeouts');
  const url = (name: string): string => exam.steps.find((s) => s.name === name)?.url as string;
  t.equal((await fetch(url('keepalive-lie'))).status, 200, 'the two requests the limit allows');
  t.equal((await fetch(url('keepalive-lie'))).status, 200);
  t.equal((await fetch(url('drip'))).status, 429, 'then the real limit');
  t.equal((await fetch(url('drip'))).status, 429);
  await sleep(200);
  const report = await examReport(exam.report_url);
  const drip = report.steps.find((s) => s.name === 'drip');
  t.equal(drip?.verdict, 'fail');
  t.match(drip?.observed, /2 request\(s\), all refused by the service's real per-IP limit \(429\)/);
  t.equal(report.steps.find((s) => s.name === 'keepalive-lie')?.verdict, 'pass', 'allowed requests are graded as usual');
});

t.test('without TLS the https-downgrade step is left out, and the answer says why', async (t) => {
  const stack = await startExamStack(t);
  const exam = await openExam(stack.hub, 'redirects');
  t.notOk(exam.steps.some((s) => s.name === 'https-downgrade'), 'no TLS step');
  t.same(exam.notes, ['https-downgrade is left out: this deployment serves no TLS host (TLS_DIR is unset; docs/tls.md)']);
  const report = await examReport(exam.report_url);
  t.same(report.steps.map((s) => s.name), exam.steps.map((s) => s.name), 'graded on the same steps');
  t.equal((await openExam(stack.hub, 'retries')).notes, undefined, 'a profile with nothing left out has no notes');
});
