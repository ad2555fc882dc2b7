// The client scorecard, docs/clients.md: what real HTTP clients do with each
// headline lie of the chaos host, observed by running them, never guessed.
// Starts its own chaos and control services on free loopback ports (one chaos
// service per client, so the connections each client opens can be counted),
// runs every client against every lie with a bounded timeout, and renders one
// table per lie.
//
//   node dist/scripts/client-scorecard.js --write          rewrites docs/clients.md
//   node dist/scripts/client-scorecard.js [--lie a,b] [--client curl,wget] [--table websocket,tls,http2,h2c,exam,sdk]
//                                                          prints the Markdown
//   node dist/scripts/client-scorecard.js --write --table exam   reruns those tables only, in the page as it is
//   node dist/scripts/client-scorecard.js --help           the usage (names of the lies, clients, tables), runs nothing
//
// After the HTTP lies, tables with clients of their own, each running its
// cells several at once: every /ws chaos lie (scripts/scorecard/websocket-table.ts),
// every TLS mode (scripts/scorecard/tls-table.ts), every /h2/* lie (scripts/scorecard/http2-table.ts), the h2c upgrade (scripts/scorecard/h2c-table.ts),
// every exam profile taken by every runner of scripts/exam/ (scripts/scorecard/exam-table.ts), and the
// official MCP and LLM SDKs against their chaos modes (scripts/scorecard/sdk-table.ts). Run it on Node 24 (the
// project's runtime): Node 20 has no global WebSocket.
//
// tests/unit/client-scorecard.test.ts checks that docs/clients.md is this
// script's output for every lie it knows; tests/integration/clients/client-scorecard.test.ts
// runs one lie with curl.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import type { Connection } from '../services/chaos/connection.js';
import type { ParsedRequest } from '../services/chaos/parser.js';
import { ChaosServer, type ChaosServerOptions } from '../services/chaos/server.js';
import { serviceRegistries } from '../services/registries.js';
import { freeLoopbackPorts } from '../services/supervisor.js';
import { counterpartUrl } from '../shared/catalog/catalog.js';
import { loadConfig, type Config } from '../shared/config/config.js';
import { HttpService } from '../shared/http/http-service.js';
import { createLogger } from '../shared/config/log.js';
import { parseParams, splitQuery } from '../shared/primitives/params.js';
import { MemoryStore } from '../shared/store/memory.js';
import type { NodeClientSpec, RequestOutcome } from './client-scorecard-node.js';
import { repoPath } from './readme-tables.js';
import { escapeCell, parseMatrix, renderMatrix, splitRow, unescapeCell, type MatrixResult } from './scorecard/markdown.js';
import { parseExamTables, renderExamTables, runExamTables, type ExamTables } from './scorecard/exam-table.js';
import { LLM_SDK_SPEC, MCP_SDK_SPEC, runSdkTables, type SdkTables } from './scorecard/sdk-table.js';
import { chromiumTrusting, runTlsTable, TLS_SPEC } from './scorecard/tls-table.js';
import { runWebSocketTable, WS_SPEC } from './scorecard/websocket-table.js';
import { H2_SPEC, runH2Table } from './scorecard/http2-table.js';
import { H2C_SPEC, runH2cTable } from './scorecard/h2c-table.js';

export { escapeCell, unescapeCell };

/** The timeout every client is given, in its own terms (see CLIENTS). */
export const CLIENT_TIMEOUT_S = 5;
/** Every client run is killed after this, whatever its own timeout does. */
export const HARD_BOUND_MS = 20_000;

export interface Lie {
  readonly id: string;
  readonly title: string;
  /** What the chaos host sends, in a sentence or two of Markdown. */
  readonly lie: string;
  /** Path and query on the chaos host. */
  readonly path: string;
  /** A second request on the same connection, where a lie bleeds into the next response. */
  readonly then?: string;
  /** Clients with a JSON reader parse the body. */
  readonly json?: boolean;
  /** curl follows redirects only with -L. */
  readonly follow?: boolean;
  /** curl decodes a content coding only with --compressed. */
  readonly compressed?: boolean;
  /** curl retries only with --retry. */
  readonly retry?: boolean;
}

const CHUNKED: readonly (readonly [string, string])[] = [
  ['bad-size', 'the first chunk-size line is `zz`, not hexadecimal'],
  ['size-too-large', 'the first chunk-size line claims 1024 bytes more than follow, then a close'],
  ['missing-terminator', 'honest chunks, no `0` last chunk, then a close'],
  ['junk-trailers', 'honest chunks; after the `0` chunk, trailer lines that are not fields'],
  ['cl-and-te', 'honest chunks, but the head also has a `Content-Length` (a sender must not send both)'],
];

const STATUS_LINES: readonly (readonly [string, string])[] = [
  ['reason-mismatch', '`HTTP/1.1 200 Not Found`'],
  ['empty-reason', '`HTTP/1.1 200 ` (a space, no reason phrase)'],
  ['no-reason', '`HTTP/1.1 200` (no space)'],
  ['http10', '`HTTP/1.0 200 OK` to an HTTP/1.1 request'],
  ['http2-version', '`HTTP/2 200`'],
  ['four-digit', '`HTTP/1.1 2000 OK`'],
  ['lowercase', '`http/1.1 200 ok`'],
  ['lf-only', '`HTTP/1.1 200 OK`, but it and every header line end in a bare LF'],
];

const RETRY_AFTER: readonly (readonly [string, string])[] = [
  ['past-date', 'an HTTP-date an hour ago'],
  ['negative', '`-30`'],
  ['huge', '`18446744073709551616` (2^64)'],
  ['garbage', '`soon`'],
];

/** The lies, in the order of docs/clients.md. Each path is checked against the chaos registry (checkLies). */
export const LIES: readonly Lie[] = [
  { id: 'truncate', title: 'A body cut short', path: '/truncate?at=10', lie: '`Content-Length: 20`, 10 bytes, then a clean close (FIN).' },
  {
    id: 'partial-stream', title: 'JSON cut by a clean close', path: '/partial-stream?bytes=20', json: true,
    lie: 'No Content-Length, no chunking: the close ends the body, after the first 20 bytes of a JSON object that never closes.',
  },
  {
    id: 'bytes-overshoot', title: 'Content-Length promises more than comes', path: '/bytes?mode=content-length-overshoot&n=16',
    lie: '`Content-Length: 32`, 16 bytes, then the connection is held open in silence (30 s).',
  },
  {
    id: 'bytes-undershoot', title: 'Content-Length promises less than comes', path: '/bytes?mode=content-length-undershoot&n=16', then: '/status/200',
    lie: '`Content-Length: 8`, then all 16 bytes: the 8 surplus bytes wait on the keep-alive connection, in front of the next response.',
  },
  {
    id: 'gzip-plain-body', title: 'gzip claimed, plain text sent', path: '/compression?mode=gzip-header-plain-body', compressed: true,
    lie: '`Content-Encoding: gzip` over 983 bytes of plain text (curl runs with `--compressed`, without which it decodes nothing).',
  },
  {
    id: 'unknown-coding', title: 'An unknown content coding', path: '/compression?mode=wrong-encoding-name', compressed: true,
    lie: '`Content-Encoding: superzip` over real gzip bytes (curl runs with `--compressed`).',
  },
  {
    id: 'invalid-json', title: 'Invalid JSON', path: '/json', json: true,
    lie: 'Labelled `application/json`: an unquoted key, a trailing comma and no closing brace. Clients with a JSON reader use it.',
  },
  {
    id: 'json-trailing-garbage', title: 'Valid JSON, then garbage', path: '/json?mode=trailing-garbage', json: true,
    lie: 'A valid JSON document and its newline, then 32 garbage bytes (a NUL first), all counted by `Content-Length`.',
  },
  { id: 'reset-before-head', title: 'A reset before any byte', path: '/reset', lie: 'A TCP reset (RST) in place of the response.' },
  {
    id: 'reset-mid-body', title: 'A reset in the middle of the body', path: '/reset?phase=mid-body&after=10',
    lie: 'A head declaring 1034 bytes, 10 of them, then a TCP reset.',
  },
  { id: 'empty', title: 'An empty reply', path: '/empty', lie: 'The request is read, then a clean close with no byte sent.' },
  { id: 'garbage', title: 'Garbage instead of a response', path: '/garbage?n=64', lie: '64 random bytes in place of a response (no status line), then a clean close.' },
  ...CHUNKED.map(([mode, what]): Lie => ({
    id: `chunked-${mode}`, title: `Chunked framing: ${mode}`, path: `/chunked?mode=${mode}`,
    lie: `\`Transfer-Encoding: chunked\`, three chunks of JSON: ${what}.`,
  })),
  {
    id: 'redirect-loop', title: 'A redirect loop', path: '/redirect-loop', follow: true,
    lie: 'A 302 to `/redirect-loop?n=2&at=1`, which redirects back: a cycle of two URLs that never resolves (curl runs with `-L`).',
  },
  {
    id: 'slow-headers', title: 'A head that takes 8 s', path: '/slow-headers?ms=2000&lines=4',
    lie: 'The status line at once, then a header line every 2 s: the head is complete after 8 s, longer than the 5 s timeout, never silent for 5 s.',
  },
  { id: 'stall', title: 'A stalled body', path: '/stall?ms=10000', lie: 'A head promising 1 byte, then 10 s of silence, then a clean close.' },
  {
    id: 'duplicate-content-length', title: 'Two Content-Length lines', path: '/duplicate-headers?mode=content-length',
    lie: '`Content-Length: n` (true) and `Content-Length: 2n` in one head, `n` bytes, then a close.',
  },
  {
    id: 'duplicate-content-type', title: 'Two Content-Type lines', path: '/duplicate-headers?mode=content-type',
    lie: '`Content-Type: application/json` then `Content-Type: text/html; charset=utf-8`, over a JSON body.',
  },
  { id: 'huge-header', title: 'A 16 KiB header line', path: '/huge-header', lie: 'One header line with a 16384-byte value: the head is just over 16 KiB.' },
  { id: 'huge-header-256k', title: 'A 256 KiB header line', path: '/huge-header?size=262144', lie: 'One header line with a 262144-byte value.' },
  { id: 'header-flood', title: 'A hundred extra header lines', path: '/header-flood?n=100', lie: '100 synthetic header lines after the usual ones: 106 in all.' },
  ...STATUS_LINES.map(([mode, line]): Lie => ({
    id: `status-line-${mode}`, title: `Status line: ${mode}`, path: `/status-line?mode=${mode}`,
    lie: `The status line is ${line}; the rest is an ordinary JSON 200, then a close.`,
  })),
  {
    id: 'keepalive-lie', title: 'Keep-alive promised, then a close', path: '/keepalive-lie', then: '/status/200',
    lie: 'A complete 200 whose head says `Connection: keep-alive` and `Keep-Alive: timeout=60`, then a close (FIN).',
  },
  { id: 'interim-103', title: 'An interim 103 before the answer', path: '/status/103', lie: 'An interim `103 Early Hints` head, then the final `200` JSON response.' },
  ...RETRY_AFTER.map(([mode, value]): Lie => ({
    id: `retry-after-${mode}`, title: `Retry-After: ${mode}`, path: `/retry-after-formats?mode=${mode}`, retry: true,
    lie: `A chaos 429 with \`Retry-After:\` ${value} (curl runs with \`--retry 1\`; the other clients as they are).`,
  })),
];

/** Throws unless every lie's path is a chaos endpoint and its query names only declared parameters, in range. */
export function checkLies(lies: readonly Lie[] = LIES): void {
  const registry = serviceRegistries().chaos;
  const problems: string[] = [];
  for (const lie of lies) {
    for (const target of [lie.path, ...(lie.then ? [lie.then] : [])]) {
      const url = new URL(target, 'http://x');
      const match = registry.match(url.pathname);
      if (!match) {
        problems.push(`${lie.id}: no chaos endpoint serves ${url.pathname}`);
        continue;
      }
      const query = splitQuery(url.search.slice(1));
      const unknown = [...query.keys()].filter((name) => !(name in match.endpoint.params));
      const parsed = parseParams(match.endpoint.path, match.endpoint.params, query, match.pathValues);
      if (unknown.length) problems.push(`${lie.id}: ${match.endpoint.path} declares no ${unknown.join(', ')}`);
      if (!parsed.ok) problems.push(`${lie.id}: ${parsed.error.reason}`);
      else if (parsed.clamped.length) problems.push(`${lie.id}: clamped ${parsed.clamped.join(', ')}`);
    }
  }
  if (problems.length) throw new Error(`client scorecard lies:\n${problems.join('\n')}`);
}

export const CLIENT_IDS = ['curl', 'wget', 'urllib', 'requests', 'fetch', 'node-http', 'chromium'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export interface ClientInfo {
  readonly name: string;
  readonly runAs: string;
  readonly timeout: string;
}

export const CLIENTS: Readonly<Record<ClientId, ClientInfo>> = {
  curl: {
    name: 'curl',
    runAs: "`curl --no-progress-meter -v --max-time 5 -o FILE -o FILE -w '%{http_code} %{size_download}' URL [URL]`; the outcome quotes its `curl: (N)` error and the telling `-v` lines",
    timeout: '`--max-time 5`: the whole transfer',
  },
  wget: {
    name: 'wget',
    runAs: '`wget -O /dev/null --timeout=5 --tries=1 URL [URL]` (one try: by default wget tries 20 times)',
    timeout: '`--timeout=5`: connect, and each read (idle time)',
  },
  urllib: {
    name: 'Python urllib',
    runAs: '`urllib.request.urlopen(url, timeout=5).read()` for each URL (urllib opens a connection per request); `json.loads` for JSON lies',
    timeout: '`timeout=5`: each socket operation (idle time)',
  },
  requests: {
    name: 'Python requests',
    runAs: '`session.get(url, timeout=5).content` on one `requests.Session()`; `.json()` for JSON lies',
    timeout: '`timeout=5`: connect, and each read (idle time)',
  },
  fetch: {
    name: 'Node fetch (undici)',
    runAs: '`fetch(url, {signal: AbortSignal.timeout(5000)})`, the body read to its end; `JSON.parse` for JSON lies',
    timeout: '`AbortSignal.timeout(5000)`: the whole exchange',
  },
  'node-http': {
    name: 'node:http',
    runAs: '`http.get(url, {agent: new http.Agent({keepAlive: true, maxSockets: 1}), timeout: 5000})`, the body read to its end',
    timeout: '`timeout: 5000`: socket idle time',
  },
  chromium: {
    name: 'Chromium',
    runAs: 'headless (playwright-core): `fetch(url, {signal: AbortSignal.timeout(5000)})` from a page of the same origin; the net error is the browser\'s own report of the request',
    timeout: '`AbortSignal.timeout(5000)`: the whole exchange',
  },
};

/** The extra row of every lie with a twin: curl on the control host, the well-formed answer. */
export const CONTROL_ROW = 'curl, control twin';

export interface Row {
  readonly client: string;
  readonly outcome: string;
  /** TCP connections the client opened to the host for the lie ("—" when it did not run). */
  readonly connections: string;
  /** Requests the host read from the client (a retry shows here). */
  readonly requests: string;
}

export interface LieResult {
  readonly id: string;
  readonly rows: readonly Row[];
}

export interface Scorecard {
  /** YYYY-MM-DD. */
  readonly date: string;
  readonly versions: Readonly<Record<string, string>>;
  readonly results: readonly LieResult[];
  /** The WebSocket table (scripts/scorecard/websocket-table.ts), when it ran. */
  readonly websocket?: MatrixResult;
  /** The TLS table (scripts/scorecard/tls-table.ts), when it ran. */
  readonly tls?: MatrixResult;
  /** The HTTP/2 table (scripts/scorecard/http2-table.ts), when it ran. */
  readonly http2?: MatrixResult;
  /** The h2c upgrade table (scripts/scorecard/h2c-table.ts), when it ran. */
  readonly h2c?: MatrixResult;
  /** The client exam's tables (scripts/scorecard/exam-table.ts), when they ran. */
  readonly exam?: ExamTables;
  /** The MCP and LLM SDK tables (scripts/scorecard/sdk-table.ts), when they ran. */
  readonly sdk?: SdkTables;
}

/** The tables after the HTTP lies, each with its own clients. */
export const TABLE_IDS = ['websocket', 'tls', 'http2', 'h2c', 'exam', 'sdk'] as const;
export type TableId = (typeof TABLE_IDS)[number];

// ---------------------------------------------------------------- the stack

/** A host's address and what it has seen. */
interface Counted {
  readonly base: string;
  connections: number;
  requests: number;
}

/** A chaos service that counts the requests it reads. */
class CountingChaosServer extends ChaosServer {
  constructor(options: ChaosServerOptions, readonly counted: Counted) {
    super(options);
  }

  override request(connection: Connection, req: ParsedRequest, keepAlive: boolean): boolean {
    this.counted.requests++;
    return super.request(connection, req, keepAlive);
  }
}

interface Stack {
  /** Each client's own chaos host, so that its connections and requests can be counted. */
  readonly chaos: Readonly<Record<ClientId, Counted>>;
  readonly control: Counted;
  readonly config: Config;
  close(): Promise<void>;
}

/** One chaos service per client and one control service, on free loopback ports, with RATE_LIMIT_GENERAL=0. */
async function startStack(): Promise<Stack> {
  const ports = await freeLoopbackPorts(CLIENT_IDS.length + 1);
  const controlPort = ports[CLIENT_IDS.length] as number;
  const configFor = (base: string): Config =>
    loadConfig({
      LOG_LEVEL: 'silent',
      RATE_LIMIT_GENERAL: '0',
      RATE_LIMIT_INFINITE: '0',
      PUBLIC_BASE_URL: base,
      PUBLIC_CONTROL_URL: `http://127.0.0.1:${controlPort}`,
    });
  const stops: (() => Promise<void>)[] = [];
  const chaos = {} as Record<ClientId, Counted>;
  for (const [i, client] of CLIENT_IDS.entries()) {
    const base = `http://127.0.0.1:${ports[i] as number}`;
    const store = new MemoryStore();
    const counted: Counted = { base, connections: 0, requests: 0 };
    const options = { config: configFor(base), logger: createLogger('chaos', 'silent'), registry: serviceRegistries().chaos, store };
    const server = new CountingChaosServer(options, counted);
    server.server.on('connection', () => void counted.connections++);
    await server.listen(ports[i] as number, '127.0.0.1');
    chaos[client] = counted;
    stops.push(async () => {
      await server.shutdown(0);
      await store.close();
    });
  }
  const config = configFor(chaos.curl.base);
  const store = new MemoryStore();
  const service = new HttpService({ host: 'control', config, logger: createLogger('control', 'silent'), registry: serviceRegistries().control, store });
  const control: Counted = { base: `http://127.0.0.1:${controlPort}`, connections: 0, requests: 0 };
  service.server.on('connection', () => void control.connections++);
  service.server.on('request', () => void control.requests++);
  await service.listen(controlPort, '127.0.0.1');
  stops.push(async () => {
    await service.shutdown(0);
    await store.close();
  });
  return { chaos, control, config, close: async () => void (await Promise.all(stops.map((stop) => stop()))) };
}

// ---------------------------------------------------------------- running the clients

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Killed at HARD_BOUND_MS. */
  readonly killed: boolean;
  /** The program is not installed. */
  readonly missing: boolean;
}

function run(command: string, args: readonly string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: HARD_BOUND_MS, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C' } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr, killed: error?.killed === true, missing: error?.code === 'ENOENT' });
    });
  });
}

/** A message the same from one run to the next: our ports and object addresses replaced. */
export function normalise(text: string, bases: Readonly<Record<string, string>>): string {
  let out = text;
  for (const [placeholder, base] of Object.entries(bases)) out = out.split(base).join(placeholder);
  return out
    // Control characters as \xNN: a client may quote the garbage it read.
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/\bport[= ]\d+/g, (m) => `${m.slice(0, 5)}PORT`)
    .replace(/\b0x[0-9a-f]{6,}\b/g, '0x…')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Consecutive repeats as one line with a count (a redirect loop logs the same line dozens of times). */
function collapse(lines: readonly string[]): string[] {
  const out: string[] = [];
  let count = 0;
  for (const [i, line] of lines.entries()) {
    count++;
    if (lines[i + 1] === line) continue;
    out.push(count > 1 ? `${line} (×${count})` : line);
    count = 0;
  }
  return out;
}

function clip(text: string, max = 240): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function quote(text: string): string {
  return `"${clip(text)}"`;
}

function urlsOf(lie: Lie, base: string): string[] {
  return [lie.path, ...(lie.then ? [lie.then] : [])].map((path) => base + path);
}

const KILLED = `killed at the ${HARD_BOUND_MS / 1000} s bound, still running`;

/** curl's -v lines that say something about the lie (not the routine connect and reuse lines). */
const CURL_ROUTINE = /^\* +(Trying|Connected to|Hostname .* was found in DNS cache|Connection #\d+ to host .* left intact|Mark bundle|Found bundle|Can not multiplex|Re-using existing connection|Closing connection|Issue another request to this URL|Ignoring the response-body|Added .* to DNS cache|Expire in|Server auth|Uses proxy|Host .* was resolved|IPv[46]:|Request completely sent off|We are completely uploaded|STATE:|processing:|Send failure|Hostname in DNS cache)/;

async function viaCurl(lie: Lie, base: string, bases: Readonly<Record<string, string>>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'scorecard-curl-'));
  try {
    const urls = urlsOf(lie, base);
    const args = [
      '--no-progress-meter', '-v', '--max-time', String(CLIENT_TIMEOUT_S),
      ...(lie.follow ? ['-L'] : []), ...(lie.compressed ? ['--compressed'] : []), ...(lie.retry ? ['--retry', '1'] : []),
      '-w', '%{http_code} %{size_download}\\n',
      ...urls.flatMap((url, i) => ['-o', join(dir, `${i}.body`), url]),
    ];
    const ran = await run('curl', args);
    if (ran.missing) return 'not installed';
    const lines = ran.stderr.split(/\r?\n/);
    const error = lines.map((l) => /^curl: \(\d+\) (.*)$/.exec(l)?.[1]).find((m) => m !== undefined);
    const notes = collapse(
      lines
        .filter((l) => (l.startsWith('* ') && !CURL_ROUTINE.test(l)) || l.startsWith('Warning: '))
        .map((l) => normalise(l.replace(/^\* /, ''), bases))
        .filter((l) => l !== '' && l !== error),
    ).slice(0, 3);
    const transfers = ran.stdout.trim().split('\n').filter((l) => l !== '').map((l) => {
      const [code, size] = l.split(' ');
      return code === '000' ? 'no response' : `${code}, ${size} bytes`;
    });
    const parts = [
      ran.killed ? KILLED : `exit ${ran.code ?? '?'}${error ? ` ${quote(normalise(error, bases))}` : ''}`,
      ...(transfers.length ? [transfers.join(' then ')] : []),
      ...(notes.length ? [`stderr: ${notes.map((n) => quote(n)).join(', ')}`] : []),
    ];
    return parts.join('; ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const WGET_EXIT: Readonly<Record<number, string>> = {
  1: 'generic error', 2: 'parse error', 3: 'file I/O error', 4: 'network failure', 5: 'SSL failure', 6: 'authentication failure', 7: 'protocol error', 8: 'server error response',
};

const WGET_ROUTINE = /^(--\d{4}-\d\d-\d\d .*--|Connecting to |Reusing existing connection|Resolving |Length: |Saving to: |\s+\d+K[ .]|FINISHED --|Total wall clock time|Downloaded: |\s*$)/;

async function viaWget(lie: Lie, base: string, bases: Readonly<Record<string, string>>): Promise<string> {
  const ran = await run('wget', ['-O', '/dev/null', `--timeout=${CLIENT_TIMEOUT_S}`, '--tries=1', ...urlsOf(lie, base)]);
  if (ran.missing) return 'not installed';
  const lines = ran.stderr
    .split(/\r?\n/)
    .filter((l) => !WGET_ROUTINE.test(l))
    .map((l) =>
      l
        .replace(/^HTTP request sent, awaiting response\.\.\. ?/, 'response: ')
        .replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?:\([^)]*\) - )?/, '')
        .replace(/[‘'`]\/dev\/null['’] saved/, 'saved'),
    )
    .map((l) => normalise(l, bases));
  const code = ran.code ?? 0;
  const exit = ran.killed ? KILLED : `exit ${code}${code ? ` (${WGET_EXIT[code] ?? 'error'})` : ''}`;
  const all = collapse(lines);
  // A redirect loop logs two lines a hop: its start and its end say what happened.
  const notes = all.length > 8 ? [...all.slice(0, 2), `… ${all.length - 5} lines …`, ...all.slice(-3)] : all;
  return [exit, ...(notes.length ? [notes.map((n) => (n.startsWith('…') ? n : quote(n))).join(', ')] : [])].join('; ');
}

/** Runs urllib or requests in a fresh interpreter; prints one JSON array of RequestOutcome. */
const PYTHON_CLIENT = `
import json, sys
spec = json.loads(sys.argv[1])
def error(e):
    t = type(e)
    name = t.__qualname__ if t.__module__ == "builtins" else t.__module__ + "." + t.__qualname__
    return name + ": " + str(e)
client = spec["client"]
if client == "requests":
    import requests
    session = requests.Session()
else:
    import urllib.request
outcomes = []
for url in spec["urls"]:
    outcome = {}
    try:
        if client == "requests":
            r = session.get(url, timeout=spec["timeout"])
            outcome = {"status": r.status_code, "bytes": len(r.content)}
        else:
            r = urllib.request.urlopen(url, timeout=spec["timeout"])
            body = r.read()
            outcome = {"status": r.status, "bytes": len(body)}
        if spec["json"]:
            try:
                r.json() if client == "requests" else json.loads(body)
                outcome["json"] = "parsed"
            except Exception as e:
                outcome["json"] = error(e)
    except Exception as e:
        outcome = dict(outcome, error=error(e))
    outcomes.append(outcome)
print(json.dumps(outcomes))
`;

/** The interpreter itself, not a shim in front of it (pyenv's costs a second a run); undefined when none runs. */
async function pythonPath(): Promise<string | undefined> {
  const ran = await run(process.env.PYTHON ?? 'python3', ['-c', 'import sys; print(sys.executable)']);
  return ran.code === 0 ? ran.stdout.trim() : undefined;
}

async function viaPython(python: string | undefined, client: 'urllib' | 'requests', lie: Lie, base: string): Promise<RequestOutcome[] | string> {
  if (python === undefined) return 'not installed';
  const spec = { client, urls: urlsOf(lie, base), json: lie.json === true, timeout: CLIENT_TIMEOUT_S };
  const ran = await run(python, ['-c', PYTHON_CLIENT, JSON.stringify(spec)]);
  if (ran.missing || /ModuleNotFoundError/.test(ran.stderr)) return 'not installed';
  if (ran.killed) return KILLED;
  if (ran.code !== 0) return `the interpreter failed: ${quote(ran.stderr.trim().split('\n').pop() ?? '')}`;
  return JSON.parse(ran.stdout) as RequestOutcome[];
}

async function viaNode(client: 'fetch' | 'node-http', lie: Lie, base: string): Promise<RequestOutcome[] | string> {
  const spec: NodeClientSpec = { urls: urlsOf(lie, base), json: lie.json === true, timeoutMs: CLIENT_TIMEOUT_S * 1000 };
  const runner = fileURLToPath(new URL('./client-scorecard-node.js', import.meta.url));
  const ran = await run(process.execPath, [runner, client, JSON.stringify(spec)]);
  if (ran.killed) return KILLED;
  if (ran.code !== 0) return `the runner failed: ${quote(ran.stderr.trim().split('\n').pop() ?? '')}`;
  return JSON.parse(ran.stdout) as RequestOutcome[];
}

/** The page's fetch loop; runs inside Chromium, so it is self-contained. */
async function pageFetch(spec: NodeClientSpec): Promise<RequestOutcome[]> {
  const outcomes: RequestOutcome[] = [];
  for (const url of spec.urls) {
    let status: number | undefined;
    let bytes = 0;
    const chunks: Uint8Array[] = [];
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(spec.timeoutMs) });
      status = response.status;
      const reader = response.body?.getReader();
      for (;;) {
        const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
        if (chunk.done) break;
        bytes += chunk.value.length;
        chunks.push(chunk.value);
      }
      let json: string | undefined;
      if (spec.json) {
        const all = new Uint8Array(bytes);
        let at = 0;
        for (const c of chunks) {
          all.set(c, at);
          at += c.length;
        }
        try {
          JSON.parse(new TextDecoder().decode(all));
          json = 'parsed';
        } catch (e) {
          json = `${(e as Error).name}: ${(e as Error).message}`;
        }
      }
      outcomes.push({ status, bytes, ...(json !== undefined ? { json } : {}) });
    } catch (e) {
      const error = `${(e as Error).name}: ${(e as Error).message}`;
      outcomes.push(status === undefined ? { error } : { status, bytes, error });
    }
  }
  return outcomes;
}

async function viaChromium(browser: Browser | undefined, lie: Lie, base: string): Promise<RequestOutcome[] | string> {
  if (!browser) return 'not installed';
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // A page of the chaos host's origin that costs no request: fetch() from it is same-origin (no CORS in the way),
    // and its icon is inline, so no /favicon.ico request shares the connections being counted.
    const pageUrl = `${base}/scorecard-page`;
    const html = '<!doctype html><link rel="icon" href="data:,"><title>scorecard</title>';
    await page.route(pageUrl, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
    await page.goto(pageUrl);
    await page.unrouteAll();
    const failures: { url: string; text: string }[] = [];
    page.on('requestfailed', (request) => failures.push({ url: request.url(), text: request.failure()?.errorText ?? 'failed' }));
    const spec: NodeClientSpec = { urls: urlsOf(lie, base), json: lie.json === true, timeoutMs: CLIENT_TIMEOUT_S * 1000 };
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(KILLED), HARD_BOUND_MS)));
    const outcomes = await Promise.race([page.evaluate(pageFetch, spec), bound]);
    clearTimeout(timer);
    if (typeof outcomes === 'string') return outcomes;
    // The browser reports a failed request a moment after the page sees it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const unclaimed = [...failures];
    const withNetError = outcomes.map((outcome, i) => {
      const mine = unclaimed.filter((f) => f.url === spec.urls[i]);
      for (const f of mine) unclaimed.splice(unclaimed.indexOf(f), 1);
      return { outcome, texts: mine.map((f) => f.text) };
    });
    // A failure at another URL (a redirect's last hop) belongs to the first request that failed.
    const first = withNetError.find((o) => o.outcome.error !== undefined) ?? withNetError[0];
    if (first) first.texts.push(...unclaimed.map((f) => f.text));
    return withNetError.map(({ outcome, texts }) => {
      const net = [...new Set(texts)];
      return net.length ? { ...outcome, notes: [...(outcome.notes ?? []), `net error ${net.join(', ')}`] } : outcome;
    });
  } finally {
    await context.close();
  }
}

/** One request's outcome in a table cell. */
function describeOutcome(outcome: RequestOutcome, bases: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  if (outcome.status !== undefined) parts.push(`${outcome.status}, ${outcome.bytes ?? 0} bytes`);
  if (outcome.error !== undefined) parts.push(`${outcome.status !== undefined ? 'then ' : ''}${clip(normalise(outcome.error, bases))}`);
  else if (outcome.status !== undefined && outcome.json === undefined) parts.push('no error');
  if (outcome.json !== undefined) parts.push(outcome.json === 'parsed' ? 'JSON parsed' : `JSON: ${clip(normalise(outcome.json, bases))}`);
  for (const note of outcome.notes ?? []) parts.push(normalise(note, bases));
  return parts.join(', ');
}

function describeOutcomes(outcomes: readonly RequestOutcome[] | string, bases: Readonly<Record<string, string>>): string {
  if (typeof outcomes === 'string') return outcomes;
  const cells = outcomes.map((o) => describeOutcome(o, bases));
  return cells.length === 1 ? (cells[0] as string) : cells.map((c, i) => `${i === 0 ? '1st' : '2nd'}: ${c}`).join('; ');
}

export interface RunOptions {
  readonly lies?: readonly Lie[];
  readonly clients?: readonly ClientId[];
  /** Adds the control-twin row (curl on the control host) to each lie that has a twin. */
  readonly control?: boolean;
  /** The WebSocket and TLS tables to run too (none by default), after the lies. */
  readonly tables?: readonly TableId[];
  readonly log?: (line: string) => void;
}

async function versionOf(client: ClientId, browser: Browser | undefined, python: string | undefined): Promise<string> {
  switch (client) {
    case 'curl': {
      const ran = await run('curl', ['--version']);
      return ran.missing ? 'not installed' : (/^curl \S+/.exec(ran.stdout)?.[0] ?? ran.stdout.split('\n')[0] ?? '');
    }
    case 'wget': {
      const ran = await run('wget', ['--version']);
      return ran.missing ? 'not installed' : (/^GNU Wget \S+/.exec(ran.stdout)?.[0] ?? ran.stdout.split('\n')[0] ?? '');
    }
    case 'urllib':
    case 'requests': {
      const probe = client === 'requests'
        ? 'import sys, requests, urllib3; print("requests %s (urllib3 %s), Python %s" % (requests.__version__, urllib3.__version__, sys.version.split()[0]))'
        : 'import sys; print("Python %s" % sys.version.split()[0])';
      const ran = python === undefined ? undefined : await run(python, ['-c', probe]);
      return ran?.code === 0 ? ran.stdout.trim() : 'not installed';
    }
    case 'fetch':
      return `Node.js ${process.version}, undici ${process.versions.undici ?? '?'}`;
    case 'node-http':
      return `Node.js ${process.version}, llhttp ${process.versions.llhttp ?? '?'}`;
    case 'chromium':
      return browser ? `Chromium ${browser.version()}` : 'not installed';
  }
}

const CHROMIUM = '/usr/bin/chromium';

/** Runs the clients against the lies, each lie's clients at once (each on its own chaos host). */
export async function runScorecard(options: RunOptions = {}): Promise<Scorecard> {
  const lies = options.lies ?? LIES;
  const clients = options.clients ?? CLIENT_IDS;
  checkLies(lies);
  const stack = await startStack();
  let browser: Browser | undefined;
  try {
    if (clients.includes('chromium')) {
      if (existsSync(CHROMIUM)) {
        const { chromium } = await import('playwright-core');
        browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 60_000 });
      }
    }
    const python = clients.includes('urllib') || clients.includes('requests') ? await pythonPath() : undefined;
    const versions: Record<string, string> = {};
    for (const client of clients) versions[client] = await versionOf(client, browser, python);
    const registry = serviceRegistries().chaos;
    const results: LieResult[] = [];
    // The lies one after another (each lie's clients at once).
    const runLies = async (): Promise<void> => {
      for (const lie of lies) {
        options.log?.(`${lie.id}…`);
        const twin = options.control === false ? null : twinUrl(lie, registry, stack);
        const bases = (server: Counted) => ({ '{base_url}': server.base, '{control_url}': stack.control.base });
        const runs = clients.map((client) => {
          const server = stack.chaos[client];
          return counting(CLIENTS[client].name, server, async (): Promise<string> => {
            switch (client) {
              case 'curl': return viaCurl(lie, server.base, bases(server));
              case 'wget': return viaWget(lie, server.base, bases(server));
              case 'urllib':
              case 'requests': return describeOutcomes(await viaPython(python, client, lie, server.base), bases(server));
              case 'fetch':
              case 'node-http': return describeOutcomes(await viaNode(client, lie, server.base), bases(server));
              case 'chromium': return describeOutcomes(await viaChromium(browser, lie, server.base), bases(server));
            }
          });
        });
        if (twin !== null) {
          const onControl: Lie = { ...lie, path: twin.slice(stack.control.base.length), then: undefined };
          runs.push(counting(CONTROL_ROW, stack.control, () => viaCurl(onControl, stack.control.base, bases(stack.chaos.curl))));
        }
        const rows = await Promise.all(runs);
        results.push({ id: lie.id, rows });
      }
    };
    const tables = options.tables ?? [];
    await runLies();
    // Then the tables, one after the other: a busy machine delays the events they time.
    options.log?.(tables.join(', '));
    const websocket = tables.includes('websocket') ? await runWebSocketTable({ browser }) : undefined;
    const chromium = existsSync(CHROMIUM) ? (root: string, home: string) => chromiumTrusting(root, home, CHROMIUM) : undefined;
    const tls = tables.includes('tls') ? await runTlsTable({ chromium }) : undefined;
    const http2 = tables.includes('http2') ? await runH2Table({ chromium }) : undefined;
    const h2c = tables.includes('h2c') ? await runH2cTable() : undefined;
    const exam = tables.includes('exam') ? await runExamTables({ log: options.log }) : undefined;
    const sdk = tables.includes('sdk') ? await runSdkTables() : undefined;
    return {
      date: new Date().toISOString().slice(0, 10), versions, results,
      ...(websocket ? { websocket } : {}), ...(tls ? { tls } : {}), ...(http2 ? { http2 } : {}), ...(h2c ? { h2c } : {}), ...(exam ? { exam } : {}), ...(sdk ? { sdk } : {}),
    };
  } finally {
    await browser?.close();
    await stack.close();
  }
}

/** Runs one client and counts the connections and requests its host saw meanwhile (each client has a host of its own). */
async function counting(client: string, host: Counted, runClient: () => Promise<string>): Promise<Row> {
  const before = { connections: host.connections, requests: host.requests };
  const outcome = await runClient();
  // A retry or a late reconnect shows up a moment after the client gives up.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const ran = outcome !== 'not installed';
  return {
    client,
    outcome,
    connections: ran ? String(host.connections - before.connections) : '—',
    requests: ran ? String(host.requests - before.requests) : '—',
  };
}

/** The control twin's URL for a lie's request (same query), or null when it has none. */
function twinUrl(lie: Lie, registry: ReturnType<typeof serviceRegistries>['chaos'], stack: Stack): string | null {
  const url = new URL(lie.path, 'http://x');
  const match = registry.match(url.pathname);
  const twin = match ? counterpartUrl('chaos', match.endpoint, { ...stack.config.urls, control: stack.control.base }, url.pathname) : null;
  return twin === null || !twin.startsWith(stack.control.base) ? null : twin + url.search;
}

// ---------------------------------------------------------------- Markdown

export const GENERATED = '<!-- generated by scripts/client-scorecard.ts (`node dist/scripts/client-scorecard.js --write`); do not edit by hand -->';

function lieUrls(lie: Lie): string {
  const first = `\`{base_url}${lie.path}\``;
  return lie.then ? `${first}, then \`{base_url}${lie.then}\` on the same connection if the client keeps it` : first;
}

export function renderScorecard(card: Scorecard, lies: readonly Lie[] = LIES): string {
  const byId = new Map(card.results.map((r) => [r.id, r]));
  const versionRows = Object.entries(card.versions).map(([id, version]) => {
    const info = CLIENTS[id as ClientId];
    return `| ${info.name} | ${escapeCell(version)} | ${info.runAs} | ${info.timeout} |`;
  });
  const sections = lies.flatMap((lie) => {
    const result = byId.get(lie.id);
    if (!result) return [];
    return [
      `## ${lie.title} (\`${lie.id}\`)`,
      '',
      `${lieUrls(lie)}: ${lie.lie}`,
      '',
      '| client | outcome | connections | requests |',
      '|---|---|---|---|',
      ...result.rows.map((row) => `| ${row.client} | ${escapeCell(row.outcome)} | ${row.connections} | ${row.requests} |`),
      '',
    ];
  });
  return [
    '# What real clients do with each lie',
    '',
    GENERATED,
    '',
    `Generated on ${card.date} by running each client against each lie, not by reading their documentation:`,
    '`node dist/scripts/client-scorecard.js --write` (after `npx tsc`) starts its own chaos and control',
    'services on free loopback ports with `RATE_LIMIT_GENERAL=0`, one chaos service per client so that',
    `the connections each client opens can be counted, and gives every client a ${CLIENT_TIMEOUT_S} s timeout in its`,
    `own terms (below); every run is also killed after ${HARD_BOUND_MS / 1000} s. URLs are written as in`,
    '[URLs in examples](../README.md#urls-in-examples): `{base_url}` is the chaos host (`http://127.0.0.1:8081`',
    'by default, `http://chaos.localhost:8080` on the full stack) and `{control_url}` the control host',
    '(`http://127.0.0.1:8082`, `http://control.localhost:8080`); in messages, `PORT` stands for the port.',
    '',
    'Each table has a row per client. "connections" counts the TCP connections the client opened to the',
    'chaos host for the lie and "requests" the requests the host read on them: a retry shows as one more',
    'request, and where a second request follows, one connection means the client reused it.',
    `The last row is curl on the lie's twin on the control host: what a well-formed answer gives.`,
    'Where a lie races the client, a rerun can differ: whether the close of `keepalive-lie` arrives',
    'before the client reuses the connection, or how many bytes arrive before an error is reported.',
    '',
    'The sections after the lies, WebSocket, TLS, HTTP/2 and the h2c upgrade, are tables of their own: a row per lie, a column',
    'per client (each with its version), run by the same command after the lies; then the client exam, a',
    'table per profile (a row per exam runner, a column per step), and what the official MCP and LLM SDKs do',
    'with each of their chaos modes. `node dist/scripts/client-scorecard.js --help` lists the options and the',
    'names they take: `--write --table tls` reruns one table and rewrites it alone in this page.',
    '',
    '## The clients',
    '',
    `| client | version | run as | its ${CLIENT_TIMEOUT_S} s timeout bounds |`,
    '|---|---|---|---|',
    ...versionRows,
    '',
    ...sections,
    ...(card.websocket ? renderMatrix(WS_SPEC, card.websocket) : []),
    ...(card.tls ? renderMatrix(TLS_SPEC, card.tls) : []),
    ...(card.http2 ? renderMatrix(H2_SPEC, card.http2) : []),
    ...(card.h2c ? renderMatrix(H2C_SPEC, card.h2c) : []),
    ...(card.exam ? renderExamTables(card.exam) : []),
    ...(card.sdk ? [...renderMatrix(MCP_SDK_SPEC, card.sdk.mcp), ...renderMatrix(LLM_SDK_SPEC, card.sdk.llm)] : []),
  ].join('\n');
}

/** Reads a rendered scorecard back (the inverse of renderScorecard for the lies it holds). */
export function parseScorecard(markdown: string): Scorecard {
  const date = /^Generated on (\d{4}-\d\d-\d\d) /m.exec(markdown)?.[1] ?? '';
  const names = new Map(Object.entries(CLIENTS).map(([id, info]) => [info.name, id]));
  const versions: Record<string, string> = {};
  const results: { id: string; rows: Row[] }[] = [];
  let current: { id: string; rows: Row[] } | undefined;
  let inClients = false;
  for (const line of markdown.split('\n')) {
    const heading = /^## (.*)$/.exec(line)?.[1];
    if (heading !== undefined) {
      inClients = heading === 'The clients';
      const id = /\(`([^`]+)`\)$/.exec(heading)?.[1];
      current = id === undefined ? undefined : { id, rows: [] };
      if (current) results.push(current);
      continue;
    }
    const cells = line.startsWith('| ') ? splitRow(line) : undefined;
    if (!cells || line.startsWith('|---') || cells[0] === 'client') continue;
    if (inClients) {
      const id = names.get(cells[0] as string);
      if (id !== undefined) versions[id] = unescapeCell(cells[1] ?? '');
    } else if (current && cells.length === 4) {
      const [client, outcome, connections, requests] = cells as [string, string, string, string];
      current.rows.push({ client, outcome: unescapeCell(outcome), connections, requests });
    }
  }
  const websocket = parseMatrix(WS_SPEC, markdown);
  const tls = parseMatrix(TLS_SPEC, markdown);
  const http2 = parseMatrix(H2_SPEC, markdown);
  const h2c = parseMatrix(H2C_SPEC, markdown);
  const exam = parseExamTables(markdown);
  const mcp = parseMatrix(MCP_SDK_SPEC, markdown);
  const llm = parseMatrix(LLM_SDK_SPEC, markdown);
  const sdk = mcp && llm ? { mcp, llm } : undefined;
  return {
    date, versions, results,
    ...(websocket ? { websocket } : {}), ...(tls ? { tls } : {}), ...(http2 ? { http2 } : {}), ...(h2c ? { h2c } : {}), ...(exam ? { exam } : {}), ...(sdk ? { sdk } : {}),
  };
}

export function clientsDocPath(): string {
  return repoPath('docs/clients.md');
}

/** The usage text of --help (and of a mistake, on stderr): what runs, the options, the names they take. */
export function scorecardUsage(): string {
  return [
    'usage: node dist/scripts/client-scorecard.js [--write] [--lie a,b] [--client a,b] [--table a,b]',
    '',
    'Runs real HTTP clients against the lies of a chaos service it starts on free loopback ports',
    '(one chaos service per client, one control service), then the tables with clients of their own,',
    'and prints docs/clients.md as Markdown. Every client gets a 5 s timeout; the whole run takes minutes.',
    '',
    '  --write          rewrite docs/clients.md instead of printing (every lie, every client)',
    '  --lie a,b        only these lies (no other table unless --table names it); not with --write',
    '  --client a,b     only these clients; not with --write',
    '  --table a,b      only these tables (with --write: rewrite only them, in the page as it is)',
    '  -h, --help       print this and exit',
    '',
    `tables:  ${TABLE_IDS.join(', ')}`,
    `clients: ${CLIENT_IDS.join(', ')}`,
    `lies:    ${LIES.map((l) => l.id).join(', ')}`,
    '',
    'environment:',
    '  PATH     where curl, wget, nghttp, openssl and the exam runners are looked up',
    '  PYTHON   the Python of the urllib and requests rows (default: python3 on PATH)',
    '  GOCACHE  the Go build cache of the exam\'s Go runner (default: a temporary folder)',
    '',
    'Run it on Node 24, after `npx tsc -p tsconfig.json --outDir dist` (Node 20 has no global WebSocket).',
    '',
  ].join('\n');
}

export type ScorecardArgs =
  | { readonly kind: 'help' }
  | { readonly kind: 'wrong'; readonly problem: string }
  | { readonly kind: 'run'; readonly write: boolean; readonly lieIds?: string[]; readonly clientIds?: string[]; readonly tableIds?: string[] };

/** Reads the command line; nothing runs before it is understood (an unknown option is a mistake, not ignored). */
export function parseScorecardArgs(argv: readonly string[]): ScorecardArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        write: { type: 'boolean' },
        lie: { type: 'string' },
        client: { type: 'string' },
        table: { type: 'string' },
      },
    }).values;
  } catch (error) {
    return { kind: 'wrong', problem: (error as Error).message };
  }
  if (parsed.help) return { kind: 'help' };
  const list = (value: string | undefined): string[] | undefined => (value === undefined ? undefined : value.split(',').filter((s) => s !== ''));
  const lieIds = list(parsed.lie);
  const clientIds = list(parsed.client);
  const tableIds = list(parsed.table);
  return { kind: 'run', write: parsed.write === true, ...(lieIds ? { lieIds } : {}), ...(clientIds ? { clientIds } : {}), ...(tableIds ? { tableIds } : {}) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A mistake on the command line starts nothing: the usage on stderr, exit 2.
  const wrong: (problem: string) => never = (problem) => {
    process.stderr.write(`client-scorecard: ${problem}\n\n${scorecardUsage()}`);
    process.exit(2);
  };
  const args = parseScorecardArgs(process.argv.slice(2));
  if (args.kind === 'help') {
    process.stdout.write(scorecardUsage());
    process.exit(0);
  }
  if (args.kind === 'wrong') wrong(args.problem);
  const { write, lieIds, clientIds, tableIds } = args;
  const tables = tableIds ? TABLE_IDS.filter((id) => tableIds.includes(id)) : lieIds || clientIds ? [] : TABLE_IDS;
  const lies = lieIds ? LIES.filter((l) => lieIds.includes(l.id)) : LIES;
  const clients = clientIds ? CLIENT_IDS.filter((c) => clientIds.includes(c)) : CLIENT_IDS;
  if (tableIds && tables.length !== tableIds.length) wrong(`unknown table among ${tableIds.join(', ')}; known: ${TABLE_IDS.join(', ')}`);
  if (lieIds && lies.length !== lieIds.length) wrong(`unknown lie among ${lieIds.join(', ')}; known: ${LIES.map((l) => l.id).join(', ')}`);
  if (clientIds && clients.length !== clientIds.length) wrong(`unknown client among ${clientIds.join(', ')}; known: ${CLIENT_IDS.join(', ')}`);
  if (write && (lieIds || clientIds)) wrong('--write writes every lie for every client: drop --lie and --client (--write --table a,b rewrites only those tables)');
  // --write --table a,b: only those tables run, and replace theirs in the page as it is.
  const updating = write && tableIds !== undefined;
  const started = Date.now();
  const ran = await runScorecard({ lies: updating ? [] : lies, clients, tables, log: (line) => process.stderr.write(`${line}\n`) });
  process.stderr.write(`ran in ${Math.round((Date.now() - started) / 1000)} s\n`);
  const card: Scorecard = updating
    ? { ...parseScorecard(readFileSync(clientsDocPath(), 'utf8')), ...Object.fromEntries(tables.map((id) => [id, ran[id]])) }
    : ran;
  const markdown = renderScorecard(card, lies);
  if (write) {
    writeFileSync(clientsDocPath(), markdown);
    process.stdout.write(
      `docs/clients.md written: ${card.results.length} lies, ${clients.length} clients; ${card.websocket?.rows.length ?? 0} WebSocket lies, ${card.tls?.rows.length ?? 0} TLS modes; ` +
        `${card.exam?.profiles.length ?? 0} exam profiles × ${Object.keys(card.exam?.versions ?? {}).length} runners${updating ? ` (rewritten: ${tables.join(', ')})` : ''}\n`,
    );
  } else {
    process.stdout.write(markdown);
  }
}
