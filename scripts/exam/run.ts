// The exam runners (docs/exam.md#runners): each takes a client exam with one
// HTTP client, used as an application uses it, and prints the graded table.
//   node dist/scripts/exam/run.js <runner> [profile] [hub URL]   (default: retries, http://localhost:8082)
// This file is what the runners share: it opens the exam on the hub, hands the
// steps to the client's step taker as `name url` lines on stdin (a taker only
// takes steps, the way its client does), bounds the run, then reads the
// grade. curl (curl.sh) and fetch (fetch.ts) open their exams themselves and
// are run as they are; their grade is read from the report URL they print.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROFILE_NAMES } from '../../shared/exam/profiles.js';
import type { ExamReport } from '../../shared/exam/report.js';
import { repoPath } from '../readme-tables.js';

/** A run is killed after this, whatever its client does (got waits a 30 s Retry-After twice). */
export const RUN_BOUND_MS = 80_000;
/** Debian's interpreter, where python3-requests, python3-httpx and python3-aiohttp are installed. */
export const EXAM_PYTHON = '/usr/bin/python3';
export const CHROMIUM = '/usr/bin/chromium';

/** The profiles a generic runner takes; `agents` is the SDK runner's (scripts/exam/agents.ts). */
export const RUNNER_PROFILES = PROFILE_NAMES.filter((name) => name !== 'agents');

interface Command {
  readonly file: string;
  readonly args: readonly string[];
}

export interface ExamRunner {
  readonly id: string;
  /** The client's name in docs/clients.md. */
  readonly name: string;
  /** How the runner uses the client, in Markdown: its defaults and what the steps add. */
  readonly runAs: string;
  /** What must be installed: a Debian package (the Makefile's tools) or an npm dev dependency. */
  readonly needs: string;
  /** The step taker (or, when `selfContained`, the whole runner, given [profile] [hub]). */
  readonly command: () => Promise<Command>;
  readonly selfContained?: boolean;
  readonly version: () => Promise<string>;
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The program is not installed. */
  readonly missing: boolean;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 120_000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr, missing: (error as NodeJS.ErrnoException | null)?.code === 'ENOENT' });
    });
  });
}

/** The first line of a version command's output matching `pattern`, or the error naming what is missing. */
async function versionLine(file: string, args: readonly string[], pattern: RegExp, missing: string): Promise<string> {
  const ran = await run(file, args);
  if (ran.missing || ran.code !== 0) throw new Error(`${file} ${args.join(' ')} failed: install ${missing}`);
  const found = pattern.exec(`${ran.stdout}\n${ran.stderr}`);
  return found?.[1] ?? found?.[0] ?? (ran.stdout.split('\n')[0] as string);
}

const dist = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const node = (script: string): (() => Promise<Command>) => async () => ({ file: process.execPath, args: [dist(script)] });
const python = (client: string): (() => Promise<Command>) => async () => ({ file: EXAM_PYTHON, args: [repoPath('scripts/exam/python-steps.py'), client] });
const pythonVersion = (probe: string, pkg: string) => async (): Promise<string> => versionLine(EXAM_PYTHON, ['-c', `import sys; ${probe}`], /^(.+)$/m, pkg);
/** An npm dev dependency's version; the error names it when it is not installed. */
function npmVersion(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(repoPath(`node_modules/${pkg}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    throw new Error(`${pkg} is not installed: npm ci (it is a dev dependency)`);
  }
}

let goBinary: Promise<string> | undefined;
/** scripts/exam/go-steps.go built once per process into a temporary directory (the Go toolchain's cache there too). */
function buildGo(): Promise<string> {
  goBinary ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'exam-go-'));
    const out = join(dir, 'exam-go');
    const env = { ...process.env, GOCACHE: process.env.GOCACHE ?? join(dir, 'cache'), GOTOOLCHAIN: 'local', GOPROXY: 'off', GOFLAGS: '-mod=mod' };
    const ran = await run('go', ['build', '-o', out, repoPath('scripts/exam/go-steps.go')], env);
    if (ran.missing) throw new Error('go is not installed: install golang-go (make tools)');
    if (ran.code !== 0) throw new Error(`go build failed: ${ran.stderr}`);
    return out;
  })();
  return goBinary;
}

export const RUNNERS: readonly ExamRunner[] = [
  {
    id: 'curl', name: 'curl', needs: 'curl', selfContained: true,
    runAs: '`scripts/exam/curl.sh`: `--retry 3`, `-L --max-redirs 20`, `--max-time 2`, `--etag-save`/`--etag-compare`, `-C -` (a careful script\'s flags)',
    command: async () => ({ file: repoPath('scripts/exam/curl.sh'), args: [] }),
    version: () => versionLine('curl', ['--version'], /^curl \S+/, 'curl'),
  },
  {
    id: 'fetch', name: 'Node fetch (undici)', needs: 'Node.js', selfContained: true,
    runAs: '`scripts/exam/fetch.ts`: `fetch` as it is (redirects followed, no retry, cache or resume), `AbortSignal.timeout(2000)`',
    command: node('./fetch.js'),
    version: async () => `Node.js ${process.version}, undici ${process.versions.undici ?? '?'}`,
  },
  {
    id: 'node-http', name: 'node:http', needs: 'Node.js',
    runAs: '`http.request` on the global agent (keep-alive): no redirect following, retry, cookie jar or cache of its own; `req.setTimeout(2000)` (idle time)',
    command: node('./node-http.js'),
    version: async () => `Node.js ${process.version}, llhttp ${process.versions.llhttp ?? '?'}`,
  },
  {
    id: 'axios', name: 'axios', needs: 'npm: axios (dev dependency)',
    runAs: 'one `axios.create()` instance: redirects followed (follow-redirects), no retry, no cookie jar (axios has none), `timeout: 2000`',
    command: node('./axios.js'),
    version: async () => `axios ${npmVersion('axios')}`,
  },
  {
    id: 'got', name: 'got', needs: 'npm: got (dev dependency)',
    runAs: 'got\'s defaults: redirects followed, 2 retries of idempotent requests honouring Retry-After, no cookie jar (none is passed), `timeout: {request: 2000}`',
    command: node('./got.js'),
    version: async () => `got ${npmVersion('got')}`,
  },
  {
    id: 'urllib', name: 'Python urllib', needs: 'python3',
    runAs: 'one `build_opener(HTTPCookieProcessor(CookieJar()))`: redirects followed (not a 307/308 POST), no retry, `timeout=2`',
    command: python('urllib'),
    version: pythonVersion('print("Python " + sys.version.split()[0])', 'python3'),
  },
  {
    id: 'requests', name: 'Python requests', needs: 'python3-requests',
    runAs: 'one `requests.Session()` (its jar): redirects followed, no retry (`max_retries=0`), `timeout=2` (connect and each read)',
    command: python('requests'),
    version: pythonVersion('import requests, urllib3; print("requests %s (urllib3 %s)" % (requests.__version__, urllib3.__version__))', 'python3-requests'),
  },
  {
    id: 'httpx', name: 'Python httpx', needs: 'python3-httpx',
    runAs: 'one `httpx.Client(follow_redirects=True)` (following is off by default; the redirect steps ask for it): its jar, no retry, `timeout=2`',
    command: python('httpx'),
    version: pythonVersion('import httpx, httpcore; print("httpx %s (httpcore %s)" % (httpx.__version__, httpcore.__version__))', 'python3-httpx'),
  },
  {
    id: 'aiohttp', name: 'Python aiohttp', needs: 'python3-aiohttp',
    runAs: 'one `aiohttp.ClientSession()` (its jar): redirects followed, no retry, `ClientTimeout(total=2)`',
    command: python('aiohttp'),
    version: pythonVersion('import aiohttp; print("aiohttp " + aiohttp.__version__)', 'python3-aiohttp'),
  },
  {
    id: 'go', name: 'Go net/http', needs: 'golang-go',
    runAs: 'one `http.Client` with the stdlib `cookiejar` (the default client has none): redirects followed (10), no retry but a replay on a dead pooled connection, a 2 s context deadline',
    command: async () => ({ file: await buildGo(), args: [] }),
    version: () => versionLine('go', ['version'], /go version (go\S+)/, 'golang-go'),
  },
  {
    id: 'java', name: 'Java HttpClient', needs: 'default-jdk-headless',
    runAs: '`HttpClient.newBuilder().followRedirects(NORMAL).cookieHandler(new CookieManager())` (the default follows none), no retry, `HttpRequest.timeout(2 s)`',
    command: async () => ({ file: 'java', args: [repoPath('scripts/exam/ExamSteps.java')] }),
    version: () => versionLine('java', ['-version'], /version "([^"]+)"/, 'default-jdk-headless').then((v) => `Java ${v}`),
  },
  {
    id: 'wget', name: 'wget', needs: 'wget',
    runAs: '`scripts/exam/wget.sh`: wget\'s defaults (20 tries, redirects followed, cookies in memory, a resume with Range after a short read), `--timeout=2` (each read)',
    command: async () => ({ file: repoPath('scripts/exam/wget.sh'), args: [] }),
    version: () => versionLine('wget', ['--version'], /^GNU Wget \S+/, 'wget'),
  },
  {
    id: 'chromium', name: 'Chromium', needs: 'chromium',
    runAs: 'headless (playwright-core), one browser context: `fetch` from a page of the step\'s origin (its HTTP cache and cookies), `EventSource` for the stream, `AbortSignal.timeout(2000)`',
    command: node('./chromium.js'),
    version: () => versionLine(CHROMIUM, ['--version'], /^Chromium \S+/, 'chromium'),
  },
];

export function examRunner(id: string): ExamRunner {
  const runner = RUNNERS.find((r) => r.id === id);
  if (!runner) throw new Error(`no exam runner ${id}; known: ${RUNNERS.map((r) => r.id).join(', ')}`);
  return runner;
}

interface OpenedExam {
  readonly id: string;
  readonly steps: readonly { readonly name: string; readonly url: string }[];
  readonly report_url: string;
}

export interface ExamRun {
  readonly runner: string;
  readonly profile: string;
  readonly report: ExamReport;
  /** The grade as the hub's Markdown table. */
  readonly markdown: string;
  /** The run was stopped at RUN_BOUND_MS. */
  readonly killed: boolean;
  readonly stderr: string;
}

/** Runs `command` (its process group killed at the bound), `input` on its stdin. */
function bounded(command: Command, args: readonly string[], input: string): Promise<{ stdout: string; stderr: string; killed: boolean; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, [...command.args, ...args], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, RUN_BOUND_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, killed, code });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

async function report(reportUrl: string): Promise<{ report: ExamReport; markdown: string }> {
  const json = await fetch(reportUrl, { headers: { accept: 'application/json' } });
  if (json.status !== 200) throw new Error(`${reportUrl} answered ${json.status}`);
  const markdown = await fetch(`${reportUrl}.md`);
  return { report: (await json.json()) as ExamReport, markdown: await markdown.text() };
}

/** Takes one exam of `profile` on `hub` with `runner`; the grade once the client is done (or killed at the bound). */
export async function takeExam(runner: ExamRunner, profile: string, hub: string): Promise<ExamRun> {
  if (!RUNNER_PROFILES.includes(profile)) throw new Error(`${runner.id} takes ${RUNNER_PROFILES.join(', ')}; the agents profile is the SDK runner's (scripts/exam/agents.ts)`);
  const command = await runner.command();
  if (runner.selfContained) {
    const ran = await bounded(command, [profile, hub], '');
    const url = /^Report: (\S+) /m.exec(ran.stdout)?.[1];
    if (url === undefined) throw new Error(`${runner.id} printed no report (exit ${ran.code}): ${ran.stderr.trim()}`);
    return { runner: runner.id, profile, ...(await report(url)), killed: ran.killed, stderr: ran.stderr };
  }
  const opened = await fetch(`${hub}/exam?profile=${encodeURIComponent(profile)}`, { method: 'POST' });
  if (opened.status !== 201) throw new Error(`POST ${hub}/exam answered ${opened.status}: ${await opened.text()}`);
  const exam = (await opened.json()) as OpenedExam;
  // The https step needs the published root; without it the step is left for not-run.
  const steps = exam.steps.filter((s) => s.name !== 'https-downgrade' || process.env.EXAM_CA_FILE);
  const ran = await bounded(command, [], steps.map((s) => `${s.name} ${s.url}\n`).join(''));
  // The last entries are written as their exchanges end.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { runner: runner.id, profile, ...(await report(exam.report_url)), killed: ran.killed, stderr: ran.stderr };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [id = '', profile = 'retries', hub = 'http://localhost:8082'] = process.argv.slice(2);
  if (id === '') {
    process.stderr.write(`usage: node dist/scripts/exam/run.js <runner> [profile] [hub URL]\nrunners: ${RUNNERS.map((r) => r.id).join(', ')}\n`);
    process.exit(2);
  }
  const runner = examRunner(id);
  process.stderr.write(`${runner.name} (${await runner.version()}), profile ${profile}, on ${hub}\n`);
  const taken = await takeExam(runner, profile, hub);
  if (taken.killed) process.stderr.write(`the client was stopped after ${RUN_BOUND_MS / 1000} s\n`);
  process.stdout.write(taken.markdown);
}
