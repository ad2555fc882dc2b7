// Runs the compiled test files, each as its own node process, a few at once, and prints one TAP
// stream in the shape tap's runner prints (each file a subtest), then `N passed, N failed`.
//
//   node dist/scripts/run-tests.js [--jobs N] [--timeout S] [FILE|DIR ...]
//
// Why not tap's runner: it loads @tapjs/processinfo into every test process and, through its
// child_process hooks, into every node program a test starts (each chaos, control or CLI process),
// where module-load hooks and spawn bookkeeping run for nothing when coverage is off. Measured on the
// 2-core machine: the unit tests took 89 s under tap's runner and 70 s run this way (docs/development.md).
// The files still use tap itself; only the runner is ours.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** A file's whole-run bound, as .taprc's `timeout` was: tap inside the file fails it at this. */
export const DEFAULT_TIMEOUT_S = 120;
/** After the file's own timeout, how long before the runner kills its process group (at most). */
const KILL_GRACE_MS = 15_000;
/** After the file's process exits, how long its output pipe may stay open (held by a program it left). */
const PIPE_DRAIN_MS = 5_000;

export interface FileResult {
  readonly file: string;
  /** Assertions counted by the file's own summary line (`# { total: N, pass: N }`). */
  readonly total: number;
  readonly pass: number;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly killedAfterMs: number | null;
  readonly durationMs: number;
  /** The file's TAP, as it printed it. */
  readonly tap: string;
}

const SUMMARY = /^# \{ total: (\d+)(?:, pass: (\d+))?/m;

/** Assertions a file counted, from the last summary line it printed; null when it printed none. */
export function fileSummary(tap: string): { total: number; pass: number } | null {
  let last: RegExpExecArray | null = null;
  const lines = new RegExp(SUMMARY.source, 'gm');
  for (let match = lines.exec(tap); match; match = lines.exec(tap)) last = match;
  if (!last) return null;
  return { total: Number(last[1]), pass: Number(last[2] ?? 0) };
}

/**
 * Whether a file passed: it exited 0 on its own, counted at least one assertion, and every one passed
 * (a skip or a todo counts as failed, the CI rule).
 */
export function filePassed(result: FileResult): boolean {
  return result.exitCode === 0 && result.killedAfterMs === null && result.total > 0 && result.pass === result.total;
}

/** Failures a file adds to the run's count: its failed assertions, or one when it failed without any. */
export function fileFailures(result: FileResult): number {
  const failed = result.total - result.pass;
  return filePassed(result) ? 0 : Math.max(failed, 1);
}

/** The file's block in the run's TAP: its output indented as a subtest, then its test point. */
export function renderFile(result: FileResult, index: number): string {
  const body = result.tap
    // A subtest carries no version line of its own (TAP 14).
    .replace(/^TAP version \d+\n/, '')
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => (line === '' ? '' : `    ${line}`))
    .join('\n');
  const time = `# time=${result.durationMs.toFixed(3)}ms`;
  const head = `# Subtest: ${result.file}\n${body}\n`;
  if (filePassed(result)) return `${head}ok ${index} - ${result.file} ${time}\n\n`;
  const why: string[] = [];
  if (result.killedAfterMs !== null) why.push(`  killed: still running ${result.killedAfterMs} ms after start`);
  if (result.exitCode !== null && result.exitCode !== 0) why.push(`  exitCode: ${result.exitCode}`);
  if (result.signal) why.push(`  signal: ${result.signal}`);
  if (result.total === 0) why.push('  reason: no assertion counted (no summary line, or an empty file)');
  return `${head}not ok ${index} - ${result.file} ${time}\n  ---\n${why.join('\n')}\n  ...\n\n`;
}

/** The files given, and every `*.test.js` under the folders given, sorted. */
export function testFiles(roots: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (path: string, named: boolean): void => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)) walk(join(path, name), false);
    } else if (named || path.endsWith('.test.js')) found.push(path);
  };
  for (const root of roots) walk(root, true);
  return [...new Set(found.map((file) => relative(process.cwd(), file) || file))].sort();
}

function runFile(file: string, timeoutS: number): Promise<FileResult> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, ['--enable-source-maps', file], {
    // A group of its own, so a hung file is killed with whatever it started.
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TAP_TIMEOUT: String(timeoutS) },
  });
  running.add(child);
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  let killedAfterMs: number | null = null;
  const killer = setTimeout(() => {
    killedAfterMs = Math.round(performance.now() - started);
    killGroup(child);
  }, timeoutS * 1000 + Math.min(KILL_GRACE_MS, timeoutS * 1000));
  let drain: NodeJS.Timeout | undefined;
  child.on('exit', () => {
    // The file's process is gone; anything it left in its group goes with it. A program it started in a
    // group of its own may still hold the output pipe open: past PIPE_DRAIN_MS the pipe is let go.
    killGroup(child);
    drain = setTimeout(() => child.stdout?.destroy(), PIPE_DRAIN_MS);
  });
  return new Promise((resolve) => {
    child.on('close', (exitCode, signal) => {
      clearTimeout(killer);
      clearTimeout(drain);
      running.delete(child);
      const tap = Buffer.concat(chunks).toString('utf8');
      const counted = fileSummary(tap) ?? { total: 0, pass: 0 };
      resolve({ file, ...counted, exitCode, signal, killedAfterMs, durationMs: performance.now() - started, tap });
    });
  });
}

const running = new Set<ChildProcess>();

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is already empty.
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      jobs: { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      'usage: node dist/scripts/run-tests.js [--jobs N] [--timeout S] [FILE|DIR ...]\n' +
        `  every *.test.js under dist/tests (or under the given files and folders); --jobs at once (default ${defaultJobs()}),\n` +
        `  each failed after --timeout seconds (default ${DEFAULT_TIMEOUT_S}). Ends with "N passed, N failed".\n`,
    );
    return;
  }
  const jobs = positiveInteger(values.jobs, '--jobs') ?? defaultJobs();
  const timeoutS = positiveInteger(values.timeout, '--timeout') ?? DEFAULT_TIMEOUT_S;
  const files = testFiles(positionals.length > 0 ? positionals : ['dist/tests']);
  if (files.length === 0) throw new Error('no *.test.js file found (run `make build` first)');

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      for (const child of running) killGroup(child);
      process.exit(130);
    });
  }

  process.stdout.write(`TAP version 14\n1..${files.length}\n`);
  const results: FileResult[] = [];
  let next = 0;
  let printed = 0;
  const done = new Map<number, FileResult>();
  // Files finish out of order; each block is printed once every file before it has been.
  const flush = (): void => {
    for (let result = done.get(printed); result; result = done.get(printed)) {
      done.delete(printed);
      printed += 1;
      process.stdout.write(renderFile(result, printed));
    }
  };
  const worker = async (): Promise<void> => {
    for (let index = next++; index < files.length; index = next++) {
      const result = await runFile(files[index] as string, timeoutS);
      results[index] = result;
      done.set(index, result);
      flush();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));

  const total = results.reduce((sum, result) => sum + Math.max(result.total, 1), 0);
  const failed = results.reduce((sum, result) => sum + fileFailures(result), 0);
  process.stdout.write(`# { total: ${total}, pass: ${total - failed} }\n# time=${(performance.now() - started).toFixed(3)}ms\n\n`);
  const failedFiles = results.filter((result) => !filePassed(result));
  for (const result of failedFiles.slice(0, 50)) process.stdout.write(`not ok - ${result.file}\n`);
  process.stdout.write(`${total - failed} passed, ${failed} failed\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

function defaultJobs(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

function positiveInteger(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a positive integer, not ${JSON.stringify(text)}`);
  return value;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`run-tests: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  });
}
