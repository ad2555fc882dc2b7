// The client scorecard's WebSocket table (docs/clients.md): every mode of
// every /ws chaos endpoint, opened by Node's global WebSocket (undici), `ws`,
// python3-websockets and Chromium (scripts/scorecard/ws-clients.ts), and the
// same path and query on the control twin, where none should fail. Each cell
// is what the run saw, described by describe* below; nothing is typed in.
import { createRequire } from 'node:module';
import type { Browser } from 'playwright-core';
import { ChaosServer } from '../../services/chaos/server.js';
import { serviceRegistries } from '../../services/registries.js';
import { loadConfig } from '../../shared/config/config.js';
import { createLogger } from '../../shared/config/log.js';
import { CLOSE_MODES, DEFLATE_MODES, FRAME_MODES, HANDSHAKE_MODES } from '../../shared/content/websocket.js';
import { HttpService } from '../../shared/http/http-service.js';
import { MemoryStore } from '../../shared/store/memory.js';
import type { MatrixResult, MatrixRow, MatrixSpec } from './markdown.js';
import { inPool } from './pool.js';
import {
  chromiumWebSocket, nodeWebSocket, OPEN_WAIT_MS, pythonWebsockets, QUIET_MS, WS_PYTHON, wsPackage, type ChromiumWsSeen, type PyWsReport, type WsSeen,
} from './ws-clients.js';

/** A lie: path and query on the chaos host (and on control, for the twin), and the subprotocol offered. */
export interface WsLie {
  readonly path: string;
  readonly protocol?: string;
}

/** Every mode of every /ws chaos endpoint, from the modes the endpoints declare. */
export const WS_LIES: readonly WsLie[] = [
  ...FRAME_MODES.map((mode) => ({ path: `/ws/frames?mode=${mode}` })),
  ...CLOSE_MODES.map((mode) => ({ path: `/ws/close?mode=${mode}` })),
  // protocol-missing answers an offer without choosing: a client must offer one.
  ...HANDSHAKE_MODES.map((mode) => (mode === 'protocol-missing' ? { path: `/ws/handshake?mode=${mode}`, protocol: 'chat' } : { path: `/ws/handshake?mode=${mode}` })),
  ...DEFLATE_MODES.map((mode) => ({ path: `/ws/deflate?mode=${mode}` })),
  { path: '/ws/ping-flood?count=10000' },
  { path: '/ws/pong-lie' },
];

export const WS_CLIENT_IDS = ['node', 'ws', 'python', 'chromium'] as const;
export type WsClientId = (typeof WS_CLIENT_IDS)[number];

export const TWIN_COLUMN = 'control twin (all four clients)';

export const WS_SPEC: MatrixSpec = {
  heading: 'WebSocket: what clients do with each lie',
  intro: [[
    'Each WebSocket chaos lie ([WebSocket chaos](websocket.md)) opened by each client on a fresh connection',
    '(`HOST` is the chaos host; the twin column, the control host), with no message sent: a run ends at the',
    `client's close event, or after ${QUIET_MS / 1000} s without an event (${OPEN_WAIT_MS / 1000} s before the first one, and after an error), when the`,
    'client is told to close. A cell names what the client reported: whether it opened, the messages it',
    'delivered, its error (the text, where the client gives one; Node\'s and Chromium\'s error events carry',
    'none, so Chromium\'s cell quotes its console), the close code it reported, or "stays open" (it accepted',
    'what it was sent). The last column runs the four clients against the control twin at the same path and',
    'query, where none should fail. Clients disagree: compare `/ws/close?mode=invalid-code` and',
    '`/ws/frames?mode=data-after-close` across the row.',
  ].join('\n')],
  clients: [
    { id: 'node', name: 'Node WebSocket (undici)', runAs: '`new WebSocket(url, protocol)`, the global of Node.js (undici)' },
    { id: 'ws', name: 'ws', runAs: '`new WebSocket(url, protocol)` of the `ws` package' },
    { id: 'python', name: 'Python websockets', runAs: '`websockets.connect(url, subprotocols=…, open_timeout=10, close_timeout=2)`, then `recv()` until 2 s pass without a message (Debian\'s python3-websockets)' },
    { id: 'chromium', name: 'Chromium', runAs: 'headless (playwright-core): `new WebSocket(url, protocol)` in a page; the console text read over CDP `Log.entryAdded`' },
  ],
  rowTitle: 'lie',
  extraColumns: [TWIN_COLUMN],
  rowPrefix: 'ws://HOST',
};

const opened = (open: boolean, messages: number): string =>
  open ? `opens${messages > 0 ? `, ${messages} message${messages === 1 ? '' : 's'}` : ''}` : 'never opens';

/** Node's, ws's and Chromium's events, in a cell. */
export function describeEvents(seen: { open: boolean; messages: number; error: string | boolean | undefined; code: number | null | undefined }, console: readonly string[] = []): string {
  const parts = [opened(seen.open, seen.messages)];
  if (typeof seen.error === 'string') parts.push(`error "${seen.error}"`);
  else if (seen.error === true) parts.push('error event');
  if (console.length > 0) parts.push(`console "${[...new Set(console)].join(' / ')}"`);
  parts.push(seen.code === undefined || seen.code === null ? (seen.open ? 'stays open' : 'no close event') : `close ${seen.code}`);
  return parts.join('; ');
}

/** python3-websockets' report, in a cell. */
export function describePython(report: PyWsReport): string {
  const parts = [opened(report.open, report.messages)];
  if (report.error === null) parts.push(report.open ? 'no exception, stays open' : 'no exception');
  // The accept value it quotes is derived from a random key: written as KEY so that reruns compare.
  else parts.push(report.message ? `${report.error} "${report.message.replace(/\b[A-Za-z0-9+/]{27}=/g, 'KEY')}"` : report.error);
  return parts.join('; ');
}

const nodeFailed = (s: WsSeen): boolean => !s.open || s.error !== undefined || (s.code !== undefined && s.code !== 1000);
const pythonFailed = (r: PyWsReport): boolean => !r.open || (r.error !== null && !(r.error === 'ConnectionClosedOK' && r.rcvd === 1000));
const chromiumFailed = (s: ChromiumWsSeen): boolean => !s.open || s.error || (s.code !== null && s.code !== 1000) || s.console.length > 0;

/** One client on one URL: the cell, and whether it failed (for the twin column). */
type Probe = (url: string, protocol?: string) => Promise<{ cell: string; failed: boolean }>;

export interface WsRunOptions {
  readonly lies?: readonly WsLie[];
  readonly clients?: readonly WsClientId[];
  /** Chromium for its column (none: the column says so). */
  readonly browser?: Browser;
}

/** Runs the clients against each lie on a chaos host and its control twin of their own, several lies at once. */
export async function runWebSocketTable(options: WsRunOptions = {}): Promise<MatrixResult> {
  const lies = options.lies ?? WS_LIES;
  const clients = options.clients ?? WS_CLIENT_IDS;
  // Many WebSockets from 127.0.0.1 at once: the per-address caps have their own tests.
  const config = loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_GENERAL: '0', MAX_HELD_PER_IP: '0', MAX_CONNECTIONS_PER_IP: '0' });
  const chaosStore = new MemoryStore();
  const chaos = new ChaosServer({ config, logger: createLogger('chaos', 'silent'), registry: serviceRegistries().chaos, store: chaosStore });
  const controlStore = new MemoryStore();
  const control = new HttpService({ host: 'control', config, logger: createLogger('control', 'silent'), registry: serviceRegistries().control, store: controlStore });
  const chaosBase = `ws://127.0.0.1:${await chaos.listen(0, '127.0.0.1')}`;
  const controlBase = `ws://127.0.0.1:${await control.listen(0, '127.0.0.1')}`;
  const context = clients.includes('chromium') ? await options.browser?.newContext() : undefined;
  try {
    const probes = new Map<WsClientId, Probe>();
    for (const client of clients) probes.set(client, await probeOf(client, context));
    const versions: Record<string, string> = {};
    for (const client of clients) versions[client] = await versionOf(client, options.browser);
    const rows = await inPool(lies, 3, async (lie): Promise<MatrixRow> => {
      const twin = serviceRegistries().control.match(new URL(lie.path, 'http://x').pathname) !== undefined;
      const runs = await Promise.all(clients.map(async (client) => {
        const probe = probes.get(client) as Probe;
        const [onChaos, onTwin] = await Promise.all([probe(chaosBase + lie.path, lie.protocol), twin ? probe(controlBase + lie.path, lie.protocol) : undefined]);
        return { client, onChaos, onTwin: onTwin ?? { cell: '', failed: false } };
      }));
      if (!twin) return { id: lie.path, cells: [...runs.map((r) => r.onChaos.cell), 'no twin on control'] };
      const failedOnTwin = runs.filter((r) => r.onTwin.failed).map((r) => `${WS_SPEC.clients.find((c) => c.id === r.client)?.name}: ${r.onTwin.cell}`);
      return { id: lie.path, cells: [...runs.map((r) => r.onChaos.cell), failedOnTwin.length ? failedOnTwin.join('; ') : 'no failure'] };
    });
    return { versions, rows };
  } finally {
    await context?.close();
    await chaos.shutdown(0);
    await control.shutdown(0);
    await chaosStore.close();
    await controlStore.close();
  }
}

/** A client's probe; a Chromium probe opens a page of its own per run, so that its console is its own. */
async function probeOf(client: WsClientId, context: Awaited<ReturnType<Browser['newContext']>> | undefined): Promise<Probe> {
  switch (client) {
    case 'node':
      if (typeof WebSocket === 'undefined') return async () => ({ cell: `no global WebSocket in Node.js ${process.version}`, failed: false });
      return async (url, protocol) => {
        const seen = await nodeWebSocket(url, protocol);
        return { cell: describeEvents(seen), failed: nodeFailed(seen) };
      };
    case 'ws':
      return async (url, protocol) => {
        const seen = await wsPackage(url, protocol);
        return { cell: describeEvents(seen), failed: nodeFailed(seen) };
      };
    case 'python':
      return async (url, protocol) => {
        const report = await pythonWebsockets(url, protocol).catch((error: Error) => error);
        if (report instanceof Error) return { cell: `did not run: ${report.message.split('\n')[0] ?? ''}`, failed: true };
        return { cell: describePython(report), failed: pythonFailed(report) };
      };
    case 'chromium':
      if (context === undefined) return async () => ({ cell: 'not installed', failed: false });
      return async (url, protocol) => {
        const page = await context.newPage();
        try {
          const seen = await (await chromiumWebSocket(page))(url, protocol);
          const console = seen.console.map((line) => line.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT'));
          return { cell: describeEvents(seen, console), failed: chromiumFailed(seen) };
        } finally {
          await page.close();
        }
      };
  }
}

async function versionOf(client: WsClientId, browser: Browser | undefined): Promise<string> {
  switch (client) {
    case 'node':
      return `Node.js ${process.version}, undici ${process.versions.undici ?? '?'}`;
    case 'ws':
      return `ws ${(createRequire(import.meta.url)('ws/package.json') as { version: string }).version}`;
    case 'python': {
      const { execFile } = await import('node:child_process');
      const probe = 'import sys, websockets; print("websockets %s, Python %s" % (websockets.__version__, sys.version.split()[0]))';
      return new Promise((resolve) => execFile(WS_PYTHON, ['-c', probe], (error, out) => resolve(error ? 'not installed' : out.trim())));
    }
    case 'chromium':
      return browser ? `Chromium ${browser.version()}` : 'not installed';
  }
}
