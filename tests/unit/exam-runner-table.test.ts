// docs/exam.md's runner table is RUNNERS (scripts/exam/run.ts) rendered
// (scripts/exam/runner-table.ts): the page says what run.js really runs, and
// every taker it names is in the repository.
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { commandLine, examRunner, profilesOf, RUNNER_PROFILES, RUNNERS } from '../../scripts/exam/run.js';
import { EXAM_DOC, renderRunnerTable, RUNNER_TABLE_END, RUNNER_TABLE_START, withRunnerTable } from '../../scripts/exam/runner-table.js';
import { repoPath } from '../../scripts/readme-tables.js';
import { PROFILE_NAMES } from '../../shared/exam/profiles.js';

const page = readFileSync(repoPath(EXAM_DOC), 'utf8');
const regenerate = 'regenerate it: npx tsc -p tsconfig.json && node dist/scripts/exam/runner-table.js --write';

t.test('docs/exam.md holds the runner table as run.js knows it', async (t) => {
  t.ok(page.includes(RUNNER_TABLE_START) && page.includes(RUNNER_TABLE_END), 'the generated block is marked');
  t.equal(withRunnerTable(page, renderRunnerTable()), page, regenerate);
  for (const runner of RUNNERS) t.ok(page.includes(`| \`${runner.id}\` |`), `${runner.id}: a row`);
});

t.test('each runner\'s taker exists and its command line names it', async (t) => {
  for (const runner of RUNNERS) {
    t.ok(existsSync(repoPath(runner.invocation.taker)), `${runner.id}: ${runner.invocation.taker} exists`);
    t.match(commandLine(runner), runner.invocation.program === 'node' ? runner.invocation.taker.replace(/^/, 'dist/').replace(/\.ts$/, '.js') : runner.invocation.taker, `${runner.id}: ${commandLine(runner)}`);
  }
  t.equal(commandLine(examRunner('requests')), '/usr/bin/python3 scripts/exam/python-steps.py requests');
  t.equal(commandLine(examRunner('curl')), 'scripts/exam/curl.sh [profile] [hub URL]', 'a self-contained runner is given the profile and the hub');
});

t.test('every profile is taken by some runner; agents by the SDK runner alone', async (t) => {
  for (const profile of PROFILE_NAMES) t.ok(RUNNERS.some((r) => profilesOf(r).includes(profile)), `${profile}: a runner takes it`);
  t.same(RUNNERS.filter((r) => profilesOf(r).includes('agents')).map((r) => r.id), ['sdk']);
  t.notOk(RUNNER_PROFILES.includes('agents'), 'the HTTP clients\' runners leave agents to the SDKs');
});

t.test('the table renders a runner\'s left-out steps and escapes its cells', async (t) => {
  const table = renderRunnerTable([{ ...examRunner('wget'), name: 'a | b' }]);
  t.match(table, /\| `wget` \| a \\\| b \| `scripts\/exam\/wget\.sh` \| retries, redirects, timeouts, caching, streams \| `https-downgrade`: wget has no/);
  t.throws(() => withRunnerTable('# no markers', table), /lacks the runner table markers/);
});
