// The exam runners (docs/exam.md#runners): each takes a client exam with one
// HTTP client, used as an application uses it, and prints the graded table.
//   node dist/scripts/exam/run.js <runner> [profile] [hub URL]   (default: the runner's first profile, http://localhost:8082)
// This file is what the runners share: it opens the exam on the hub, hands the
// steps to the client's step taker as `name url` lines on stdin (a taker only
// takes steps, the way its client does), bounds the run, then reads the
// grade. curl (curl.sh), fetch (fetch.ts) and the SDKs (agents.ts) open their
// exams themselves and are run as they are; their grade is read from the
// report URL they print. docs/exam.md's runner table is rendered from RUNNERS
// (scripts/exam/runner-table.ts).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  /** Removes what starting it wrote (Java's hosts file). */
  readonly cleanup?: () => void;
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

const pythonVersion = (probe: string, pkg: string) => async (): Promise<string> => versionLine(EXAM_PYTHON, ['-c', `import sys; ${probe}`], /^(.+)$/m, pkg);
/** An npm dev dependency's version; the error names it when it is not installed. */
function npmVersion(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(repoPath(`node_modules/${pkg}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    throw new Error(`${pkg} is not installed: npm ci (it is a dev dependency)`);
  }
}

/**
 * How run.js starts a runner's step taker (`taker`, a path in the repository):
 * `node` runs its compiled file under dist/, `python` Debian's interpreter,
 * `go` a binary built from it, `java` the single-file source, `exec` the file
 * itself. One description gives both the command and its line in docs/exam.md.
 */
export interface Invocation {
  readonly program: 'node' | 'python' | 'go' | 'java' | 'exec';
  readonly taker: string;
  /** Arguments after the taker (the Python client's name). */
  readonly args?: readonly string[];
}

export interface ExamRunner {
  readonly id: string;
  /** The client's name in docs/clients.md. */
  readonly name: string;
  /** How the runner uses the client, in Markdown: its defaults and what the steps add. */
  readonly runAs: string;
  /** What must be installed: a Debian package (the Makefile's tools) or an npm dev dependency. */
  readonly needs: string;
  readonly invocation: Invocation;
  /** The taker opens the exam itself, given [profile] [hub URL], and prints the grade (curl.sh, fetch.js, agents.js). */
  readonly selfContained?: boolean;
  /** The profiles it takes (default RUNNER_PROFILES). */
  readonly profiles?: readonly string[];
  /** Steps the client cannot be made to take, each with why: withheld, so graded not-run, and the table says why. */
  readonly cannotTake?: Readonly<Record<string, string>>;
  readonly version: () => Promise<string>;
}

const GO_BINARY = '<tmp>/exam-go';

/** scripts/exam/x.ts → dist/scripts/exam/x.js */
const distOf = (taker: string): string => `dist/${taker.replace(/\.ts$/, '.js')}`;

/** The command line docs/exam.md shows for a runner (run.js adds `[profile] [hub URL]` for a self-contained one). */
export function commandLine(runner: ExamRunner): string {
  const { program, taker, args = [] } = runner.invocation;
  const tail = [...args, ...(runner.selfContained ? ['[profile]', '[hub URL]'] : [])].map((a) => ` ${a}`).join('');
  switch (program) {
    case 'node':
      return `node ${distOf(taker)}${tail}`;
    case 'python':
      return `${EXAM_PYTHON} ${taker}${tail}`;
    case 'go':
      return `go build -o ${GO_BINARY} ${taker} && ${GO_BINARY}${tail}`;
    case 'java':
      return `java -Djdk.net.hosts.file=<tmp>/hosts ${taker}${tail}`;
    case 'exec':
      return `${taker}${tail}`;
  }
}

let goBinary: Promise<string> | undefined;
/** The Go taker built once per process into a temporary directory (the Go toolchain's cache there too). */
function buildGo(source: string): Promise<string> {
  goBinary ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'exam-go-'));
    const out = join(dir, 'exam-go');
    const env = { ...process.env, GOCACHE: process.env.GOCACHE ?? join(dir, 'cache'), GOTOOLCHAIN: 'local', GOPROXY: 'off', GOFLAGS: '-mod=mod' };
    const ran = await run('go', ['build', '-o', out, repoPath(source)], env);
    if (ran.missing) throw new Error('go is not installed: install golang-go (make tools)');
    if (ran.code !== 0) throw new Error(`go build failed: ${ran.stderr}`);
    return out;
  })();
  return goBinary;
}

/** The names a run must resolve to the loopback: the steps' `*.localhost` hosts (RFC 6761 §6.3), or none when a step is elsewhere. */
export function loopbackNames(urls: readonly string[]): readonly string[] | undefined {
  const hosts = new Set(urls.map((url) => new URL(url).hostname));
  const names = [...hosts].filter((host) => !/^[\d.]+$|^\[/.test(host));
  return names.every(isLoopbackName) ? [...new Set(['localhost', ...names])] : undefined;
}

export const isLoopbackName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/**
 * The command that starts `runner`. Java has no resolver hook before JDK 18's
 * SPI: where every step is on a loopback name, a hosts file of those names
 * (`jdk.net.hosts.file`) makes `*.localhost` reach the loopback; the other
 * takers map `*.localhost` there themselves.
 */
async function commandOf(runner: ExamRunner, names: readonly string[] | undefined): Promise<Command> {
  const { program, taker, args = [] } = runner.invocation;
  switch (program) {
    case 'node':
      return { file: process.execPath, args: [repoPath(distOf(taker)), ...args] };
    case 'python':
      return { file: EXAM_PYTHON, args: [repoPath(taker), ...args] };
    case 'go':
      return { file: await buildGo(taker), args };
    case 'java': {
      if (names === undefined) return { file: 'java', args: [repoPath(taker), ...args] };
      const dir = mkdtempSync(join(tmpdir(), 'exam-java-'));
      writeFileSync(join(dir, 'hosts'), `127.0.0.1 ${names.join(' ')}\n`);
      return { file: 'java', args: [`-Djdk.net.hosts.file=${join(dir, 'hosts')}`, repoPath(taker), ...args], cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    }
    case 'exec':
      return { file: repoPath(taker), args };
  }
}

const python = (client: string): Invocation => ({ program: 'python', taker: 'scripts/exam/python-steps.py', args: [client] });

export const RUNNERS: readonly ExamRunner[] = [
  {
    id: 'curl', name: 'curl', needs: 'curl', selfContained: true,
    runAs: '`scripts/exam/curl.sh`: `--retry 3`, `-L --max-redirs 20`, `--max-time 2`, `--etag-save`/`--etag-compare`, `-C -` (a careful script\'s flags)',
    invocation: { program: 'exec', taker: 'scripts/exam/curl.sh' },
    version: () => versionLine('curl', ['--version'], /^curl \S+/, 'curl'),
  },
  {
    id: 'fetch', name: 'Node fetch (undici)', needs: 'Node.js', selfContained: true,
    runAs: '`scripts/exam/fetch.ts`: `fetch` as it is (redirects followed, no retry, cache or resume), `AbortSignal.timeout(2000)`',
    invocation: { program: 'node', taker: 'scripts/exam/fetch.ts' },
    version: async () => `Node.js ${process.version}, undici ${process.versions.undici ?? '?'}`,
  },
  {
    id: 'node-http', name: 'node:http', needs: 'Node.js',
    runAs: '`http.request` on the global agent (keep-alive): no redirect following, retry, cookie jar or cache of its own; `req.setTimeout(2000)` (idle time)',
    invocation: { program: 'node', taker: 'scripts/exam/node-http.ts' },
    version: async () => `Node.js ${process.version}, llhttp ${process.versions.llhttp ?? '?'}`,
  },
  {
    id: 'axios', name: 'axios', needs: 'npm: axios (dev dependency)',
    runAs: 'one `axios.create()` instance: redirects followed (follow-redirects), no retry, no cookie jar (axios has none), `timeout: 2000`',
    invocation: { program: 'node', taker: 'scripts/exam/axios.ts' },
    version: async () => `axios ${npmVersion('axios')}`,
  },
  {
    id: 'got', name: 'got', needs: 'npm: got (dev dependency)',
    runAs: 'got\'s defaults: redirects followed, 2 retries of idempotent requests honouring Retry-After, no cookie jar (none is passed), `timeout: {request: 2000}`',
    invocation: { program: 'node', taker: 'scripts/exam/got.ts' },
    version: async () => `got ${npmVersion('got')}`,
  },
  {
    id: 'urllib', name: 'Python urllib', needs: 'python3',
    runAs: 'one `build_opener(HTTPCookieProcessor(CookieJar()))`: redirects followed (not a 307/308 POST), no retry, `timeout=2`',
    invocation: python('urllib'),
    version: pythonVersion('print("Python " + sys.version.split()[0])', 'python3'),
  },
  {
    id: 'requests', name: 'Python requests', needs: 'python3-requests',
    runAs: 'one `requests.Session()` (its jar): redirects followed, no retry (`max_retries=0`), `timeout=2` (connect and each read)',
    invocation: python('requests'),
    version: pythonVersion('import requests, urllib3; print("requests %s (urllib3 %s)" % (requests.__version__, urllib3.__version__))', 'python3-requests'),
  },
  {
    id: 'httpx', name: 'Python httpx', needs: 'python3-httpx',
    runAs: 'one `httpx.Client(follow_redirects=True)` (following is off by default; the redirect steps ask for it): its jar, no retry, `timeout=2`',
    invocation: python('httpx'),
    version: pythonVersion('import httpx, httpcore; print("httpx %s (httpcore %s)" % (httpx.__version__, httpcore.__version__))', 'python3-httpx'),
  },
  {
    id: 'aiohttp', name: 'Python aiohttp', needs: 'python3-aiohttp',
    runAs: 'one `aiohttp.ClientSession()` (its jar): redirects followed, no retry, `ClientTimeout(total=2)`',
    invocation: python('aiohttp'),
    version: pythonVersion('import aiohttp; print("aiohttp " + aiohttp.__version__)', 'python3-aiohttp'),
  },
  {
    id: 'go', name: 'Go net/http', needs: 'golang-go',
    runAs: 'one `http.Client` with the stdlib `cookiejar` (the default client has none): redirects followed (10), no retry but a replay on a dead pooled connection, a 2 s context deadline',
    invocation: { program: 'go', taker: 'scripts/exam/go-steps.go' },
    version: () => versionLine('go', ['version'], /go version (go\S+)/, 'golang-go'),
  },
  {
    id: 'java', name: 'Java HttpClient', needs: 'default-jdk-headless',
    runAs: '`HttpClient.newBuilder().followRedirects(NORMAL).cookieHandler(new CookieManager())` (the default follows none), no retry, `HttpRequest.timeout(2 s)`',
    invocation: { program: 'java', taker: 'scripts/exam/ExamSteps.java' },
    version: () => versionLine('java', ['-version'], /version "([^"]+)"/, 'default-jdk-headless').then((v) => `Java ${v}`),
  },
  {
    id: 'wget', name: 'wget', needs: 'wget',
    runAs: '`scripts/exam/wget.sh`: wget\'s defaults (20 tries, redirects followed, cookies in memory, a resume with Range after a short read), `--timeout=2` (each read)',
    invocation: { program: 'exec', taker: 'scripts/exam/wget.sh' },
    cannotTake: {
      'https-downgrade': 'wget has no `--resolve` and no hosts file of its own, and the system resolver does not resolve `*.localhost` here',
    },
    version: () => versionLine('wget', ['--version'], /^GNU Wget \S+/, 'wget'),
  },
  {
    id: 'chromium', name: 'Chromium', needs: 'chromium',
    runAs: 'headless (playwright-core), one browser context: `fetch` from a page of the step\'s origin (its HTTP cache and cookies), `EventSource` for the stream, `AbortSignal.timeout(2000)`',
    invocation: { program: 'node', taker: 'scripts/exam/chromium.ts' },
    version: () => versionLine(CHROMIUM, ['--version'], /^Chromium \S+/, 'chromium'),
  },
  {
    id: 'sdk', name: 'MCP and Anthropic SDKs', needs: 'npm: @modelcontextprotocol/sdk, @anthropic-ai/sdk (dev dependencies)', selfContained: true,
    profiles: ['agents'],
    runAs: '`scripts/exam/agents.ts`: `@modelcontextprotocol/sdk`\'s `Client` over `StreamableHTTPClientTransport` (connect, then five pings) and `@anthropic-ai/sdk`\'s `messages.create` (`maxRetries` 2), defaults included, no recovery of the runner\'s own',
    invocation: { program: 'node', taker: 'scripts/exam/agents.ts' },
    version: async () => `@modelcontextprotocol/sdk ${npmVersion('@modelcontextprotocol/sdk')}, @anthropic-ai/sdk ${npmVersion('@anthropic-ai/sdk')}`,
  },
];

/** The profiles `runner` takes. */
export const profilesOf = (runner: ExamRunner): readonly string[] => runner.profiles ?? RUNNER_PROFILES;

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
function bounded(command: Command, args: readonly string[], input: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; killed: boolean; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, [...command.args, ...args], { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env });
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

export interface TakeOptions {
  /** The TLS host's published root (PEM file) the https step trusts; default EXAM_CA_FILE. Without one the step is withheld. */
  readonly caFile?: string;
}

/** Why `runner` leaves `step` untaken on this run, if it does. */
export function withheld(runner: ExamRunner, step: string, caFile: string | undefined): string | undefined {
  const reason = runner.cannotTake?.[step];
  if (reason !== undefined) return reason;
  return step === 'https-downgrade' && caFile === undefined && !runner.selfContained ? 'no published root given (EXAM_CA_FILE)' : undefined;
}

/** Takes one exam of `profile` on `hub` with `runner`; the grade once the client is done (or killed at the bound). */
export async function takeExam(runner: ExamRunner, profile: string, hub: string, options: TakeOptions = {}): Promise<ExamRun> {
  if (!profilesOf(runner).includes(profile)) throw new Error(`${runner.id} takes ${profilesOf(runner).join(', ')}`);
  const caFile = options.caFile ?? (process.env.EXAM_CA_FILE || undefined);
  // Every taker reads the root as EXAM_CA_FILE; Node's fetch (and the SDKs over it) only as NODE_EXTRA_CA_CERTS.
  const env = { ...process.env, ...(caFile !== undefined ? { EXAM_CA_FILE: caFile, NODE_EXTRA_CA_CERTS: caFile } : {}) };
  if (runner.selfContained) {
    const ran = await bounded(await commandOf(runner, undefined), [profile, hub], '', env);
    const url = /^Report: (\S+) /m.exec(ran.stdout)?.[1];
    if (url === undefined) throw new Error(`${runner.id} printed no report (exit ${ran.code}): ${ran.stderr.trim()}`);
    return { runner: runner.id, profile, ...(await report(url)), killed: ran.killed, stderr: ran.stderr };
  }
  const opened = await fetch(`${hub}/exam?profile=${encodeURIComponent(profile)}`, { method: 'POST' });
  if (opened.status !== 201) throw new Error(`POST ${hub}/exam answered ${opened.status}: ${await opened.text()}`);
  const exam = (await opened.json()) as OpenedExam;
  const steps = exam.steps.filter((s) => withheld(runner, s.name, caFile) === undefined);
  const command = await commandOf(runner, loopbackNames(steps.map((s) => s.url)));
  const ran = await bounded(command, [], steps.map((s) => `${s.name} ${s.url}\n`).join(''), env).finally(() => command.cleanup?.());
  // The last entries are written as their exchanges end.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { runner: runner.id, profile, ...(await report(exam.report_url)), killed: ran.killed, stderr: ran.stderr };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [id = '', profileArg, hub = 'http://localhost:8082'] = process.argv.slice(2);
  if (id === '') {
    process.stderr.write(`usage: node dist/scripts/exam/run.js <runner> [profile] [hub URL]\nrunners: ${RUNNERS.map((r) => r.id).join(', ')}\n`);
    process.exit(2);
  }
  const runner = examRunner(id);
  const profile = profileArg ?? (profilesOf(runner)[0] as string);
  process.stderr.write(`${runner.name} (${await runner.version()}), profile ${profile}, on ${hub}\n`);
  const taken = await takeExam(runner, profile, hub);
  if (taken.killed) process.stderr.write(`the client was stopped after ${RUN_BOUND_MS / 1000} s\n`);
  process.stdout.write(taken.markdown);
}
