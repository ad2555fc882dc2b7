// The test runner `make test` uses (scripts/run-tests.ts): each file a node process, a few at once, one
// TAP stream in file order, `N passed, N failed` at the end. A skip, a todo, a file that counts no
// assertion, a file that exits non-zero and a file that hangs each fail the run; a hung file is killed
// with every process it started. Fixture files are written into a folder of their own and run by the
// real runner, as make test runs it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { fileFailures, filePassed, fileSummary, renderFile, testFiles, type FileResult } from '../../scripts/run-tests.js';
import { DIST, processRunning } from '../helpers/process.js';

const RUNNER = join(DIST, 'scripts/run-tests.js');

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
}

function runRunner(args: readonly string[]): Promise<Ran> {
  const child = spawn(process.execPath, [RUNNER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.resume();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

const result = (over: Partial<FileResult>): FileResult => ({
  file: 'dist/tests/x.test.js',
  total: 3,
  pass: 3,
  exitCode: 0,
  signal: null,
  killedAfterMs: null,
  durationMs: 12.5,
  tap: 'ok 1 - a\n1..1\n# { total: 3, pass: 3 }\n',
  ...over,
});

t.test('a file passes only when it exits 0, counted assertions and passed them all', async (t) => {
  t.same(fileSummary('ok 1\n# { total: 112, pass: 112 }\n# time=1ms\n'), { total: 112, pass: 112 });
  t.same(fileSummary('# { total: 3, pass: 1, fail: 1, skip: 1 }\n'), { total: 3, pass: 1 }, 'a skip is not a pass');
  t.same(fileSummary('# { total: 2, fail: 2 }\n'), { total: 2, pass: 0 }, 'no pass field: none passed');
  t.same(fileSummary('    # { total: 1, pass: 1 }\n# { total: 5, pass: 4 }\n'), { total: 5, pass: 4 }, "the file's own (last, unindented) line");
  t.equal(fileSummary('ok 1 - a\n'), null);
  t.ok(filePassed(result({})));
  t.notOk(filePassed(result({ pass: 2 })), 'a failed, skipped or todo assertion');
  t.notOk(filePassed(result({ exitCode: 1 })), 'a non-zero exit');
  t.notOk(filePassed(result({ exitCode: null, signal: 'SIGKILL' })), 'a signal');
  t.notOk(filePassed(result({ killedAfterMs: 3000 })), 'killed by the runner');
  t.notOk(filePassed(result({ total: 0, pass: 0 })), 'no assertion counted');
  t.equal(fileFailures(result({ pass: 1 })), 2, 'each failed assertion counts');
  t.equal(fileFailures(result({ exitCode: 7 })), 1, 'a failed file with no failed assertion counts once');
  t.equal(fileFailures(result({})), 0);
});

t.test("a file's block is its TAP indented as a subtest, then its test point", async (t) => {
  t.equal(
    renderFile(result({}), 4),
    '# Subtest: dist/tests/x.test.js\n    ok 1 - a\n    1..1\n    # { total: 3, pass: 3 }\nok 4 - dist/tests/x.test.js # time=12.500ms\n\n',
  );
  t.match(renderFile(result({ exitCode: 3 }), 1), /\nnot ok 1 - dist\/tests\/x\.test\.js # time=12\.500ms\n {2}---\n {2}exitCode: 3\n {2}\.\.\.\n/);
  t.match(renderFile(result({ killedAfterMs: 2001, exitCode: null, signal: 'SIGKILL' }), 1), /killed: still running 2001 ms after start\n {2}signal: SIGKILL/);
});

t.test('files: those named, and every *.test.js under the folders named, sorted', async (t) => {
  const dir = t.testdir({ 'b.test.js': '', 'a.test.js': '', 'helper.js': '', sub: { 'c.test.js': '', 'd.js': '' } });
  const found = testFiles([dir, join(dir, 'helper.js')]).map((file) => file.slice(file.lastIndexOf('/') + 1));
  t.same(found, ['a.test.js', 'b.test.js', 'helper.js', 'c.test.js']);
});

const PASSING = "import t from 'tap';\nt.test('two', async (t) => { t.ok(1); t.equal(1, 1); });\n";

t.test('a run: every way a file fails fails it, and the count says how many', async (t) => {
  const dir = t.testdir({
    '1-pass.test.js': PASSING,
    '2-fail.test.js': "import t from 'tap';\nt.test('one of two fails', async (t) => { t.ok(1); t.equal(1, 2); });\n",
    '3-skip.test.js': "import t from 'tap';\nt.test('a skip', async (t) => { t.ok(1); t.skip('later'); });\n",
    '4-todo.test.js': "import t from 'tap';\nt.test('a todo', async (t) => { t.ok(1); t.todo('later'); });\n",
    '5-empty.test.js': "console.log('no tap here');\n",
    '6-exit.test.js': "import t from 'tap';\nt.test('passes, then', async (t) => { t.ok(1); });\nt.teardown(() => process.exit(3));\n",
    '7-pass.test.js': PASSING,
  });
  const ran = await runRunner(['--jobs', '3', dir]);
  t.equal(ran.code, 1, 'the run fails');
  const points = [...ran.stdout.matchAll(/^(not ok|ok) (\d+) - .*\/(\d)-\w+\.test\.js/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
  t.same(points, ['ok 1 1', 'not ok 2 2', 'not ok 3 3', 'not ok 4 4', 'not ok 5 5', 'not ok 6 6', 'ok 7 7'], 'one test point per file, in file order');
  t.match(ran.stdout, /^TAP version 14\n1\.\.7\n# Subtest: /, 'a TAP stream with a plan');
  t.match(ran.stdout, /\n# Subtest: \S+1-pass\.test\.js\n {4}# Subtest: two\n {8}ok 1 - /, "a file's own TAP nested under it, without its version line");
  // Assertions: two passing files, 2 each; the failed, skipped and todo ones each 1 of 2; the empty file and the
  // one that exited before its summary line count 1 failure each (exit's passed assertion is not seen).
  t.match(ran.stdout, /\n# \{ total: 12, pass: 7 \}\n/);
  t.match(ran.stdout, /\n7 passed, 5 failed\n$/, 'the last line');
  for (const n of [2, 3, 4, 5, 6]) t.match(ran.stdout, new RegExp(`\\nnot ok - .*/${n}-\\w+\\.test\\.js\\n`), `file ${n} listed at the end`);

  const clean = await runRunner([join(dir, '1-pass.test.js'), join(dir, '7-pass.test.js')]);
  t.equal(clean.code, 0, 'a run of passing files exits 0');
  t.match(clean.stdout, /\n4 passed, 0 failed\n$/);
});

t.test('a file that hangs is failed at its timeout, and killed with what it started', async (t) => {
  const dir = t.testdir({
    // A test too busy to see its own timeout, with a child of its own (what a test's servers would be).
    'hang.test.js':
      "import { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\nimport t from 'tap';\n" +
      "t.test('hangs', async (t) => {\n  const child = spawn('sleep', ['300'], { stdio: 'ignore' });\n" +
      "  writeFileSync(new URL('./child.pid', import.meta.url), String(child.pid));\n  t.ok(1);\n" +
      '  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n});\n',
  });
  const started = Date.now();
  const ran = await runRunner(['--timeout', '2', dir]);
  const tookMs = Date.now() - started;
  t.equal(ran.code, 1);
  t.match(ran.stdout, /not ok 1 - .*hang\.test\.js # time=[\d.]+ms\n {2}---\n {2}killed: still running \d+ ms after start\n {2}signal: SIGKILL\n/);
  t.match(ran.stdout, /\n0 passed, 1 failed\n$/, 'its passed assertion does not count: the file failed');
  t.ok(tookMs < 30_000, `killed at its timeout plus the grace (2 + 2 s), not left to run (took ${tookMs} ms)`);
  const pid = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
  let alive = processRunning(pid);
  for (let waited = 0; alive && waited < 5000; waited += 100) {
    await sleep(100);
    alive = processRunning(pid);
  }
  t.notOk(alive, `the process it started (pid ${pid}) is gone`);
  if (alive) process.kill(pid, 'SIGKILL');
});

t.test('a file that leaves a program holding its output, in a group of its own, does not hold up the run', async (t) => {
  const dir = t.testdir({
    'leaves.test.js':
      "import { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\nimport t from 'tap';\n" +
      "const child = spawn('sleep', ['300'], { detached: true, stdio: ['ignore', 'inherit', 'ignore'] });\nchild.unref();\n" +
      "writeFileSync(new URL('./child.pid', import.meta.url), String(child.pid));\nt.test('passes', async (t) => { t.ok(1); });\n",
  });
  const started = Date.now();
  const ran = await runRunner([dir]);
  const tookMs = Date.now() - started;
  const pid = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
  t.teardown(() => {
    if (processRunning(pid)) process.kill(pid, 'SIGKILL');
  });
  t.ok(processRunning(pid), 'the program outlived the file (a group of its own escapes the kill)');
  t.equal(ran.code, 0);
  t.match(ran.stdout, /\n1 passed, 0 failed\n$/);
  t.ok(tookMs < 20_000, `the run ended a few seconds after the file did (${tookMs} ms), not with the program`);
});

t.test('--help prints the usage; a mistake exits 2 and names it', async (t) => {
  const help = await runRunner(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /^usage: node dist\/scripts\/run-tests\.js \[--jobs N\] \[--timeout S\]/);
  const wrong = await runRunner(['--jobs', 'two']);
  t.equal(wrong.code, 2);
  const missing = await runRunner(['--timeout', '0', 'dist/tests/unit/run-tests.test.js']);
  t.equal(missing.code, 2);
});
