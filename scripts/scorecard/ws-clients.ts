// The WebSocket clients, driven one way for the client cells
// (tests/integration/websocket/clients.test.ts, chromium.test.ts) and for the
// client scorecard's WebSocket table (scripts/scorecard/websocket-table.ts):
// Node's global WebSocket (undici), the `ws` package, Debian's
// python3-websockets in a subprocess, and a Chromium page. Each run ends at
// the client's close, or after QUIET_MS without an event (OPEN_WAIT_MS before
// the first one), and then we close it.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import WebSocketClient from 'ws';

/** What one client run saw. */
export interface WsSeen {
  readonly open: boolean;
  readonly messages: number;
  /** The error: a message (ws), true (an error event that carries none: Node's, Chromium's), or undefined. */
  readonly error: string | true | undefined;
  /** The close event's code; undefined when none came while we waited. */
  readonly code: number | undefined;
}

/** After the last event, this much silence ends a run (the client closes it). */
export const QUIET_MS = 1500;
/** Before the first event, and after an error (for the close that follows it), a run waits this long (a 101 head may be trickled over 5 s). */
export const OPEN_WAIT_MS = 10_000;

type Listener = (event: { data?: unknown; code?: number; message?: string }) => void;
interface ClientSocket {
  onopen: Listener | null;
  onmessage: Listener | null;
  onerror: Listener | null;
  onclose: Listener | null;
  close(): void;
}

/** Runs one client until it closes, or until QUIET_MS pass without an event. */
function watch(socket: ClientSocket): Promise<WsSeen> {
  return new Promise((resolve) => {
    let open = false;
    let messages = 0;
    let error: string | true | undefined;
    let quiet: NodeJS.Timeout;
    const done = (code: number | undefined): void => {
      clearTimeout(quiet);
      resolve({ open, messages, error, code });
    };
    const alive = (ms = QUIET_MS): void => {
      clearTimeout(quiet);
      quiet = setTimeout(() => {
        socket.onclose = null;
        socket.close();
        done(undefined);
      }, ms);
    };
    alive(OPEN_WAIT_MS);
    socket.onopen = () => {
      open = true;
      alive();
    };
    socket.onmessage = () => {
      messages++;
      alive();
    };
    socket.onerror = (event) => {
      error = event.message !== undefined && event.message !== '' ? event.message : true;
      // A close event follows an error (WHATWG §"fail the WebSocket connection"): wait for it as for an opening.
      alive(OPEN_WAIT_MS);
    };
    socket.onclose = (event) => done(event.code);
  });
}

/** Node's global WebSocket (undici; unflagged from Node 22). */
export const nodeWebSocket = (url: string, protocol?: string): Promise<WsSeen> =>
  watch(new WebSocket(url, protocol) as unknown as ClientSocket);

/** The `ws` package's client. */
export const wsPackage = (url: string, protocol?: string): Promise<WsSeen> =>
  watch(new WebSocketClient(url, protocol) as unknown as ClientSocket);

/** One python3-websockets run (scripts/scorecard/ws-py-client.py). */
export interface PyWsReport {
  readonly open: boolean;
  readonly messages: number;
  /** The exception's class, or null. */
  readonly error: string | null;
  /** The exception's text, or null. */
  readonly message: string | null;
  readonly rcvd: number | null;
  readonly sent: number | null;
}

/** Debian's Python, which has python3-websockets (a pyenv python3 on PATH may not). */
export const WS_PYTHON = '/usr/bin/python3';
const PY_CLIENT = fileURLToPath(new URL('../../../scripts/scorecard/ws-py-client.py', import.meta.url));

export function pythonWebsockets(url: string, protocol?: string): Promise<PyWsReport> {
  return new Promise((resolve, reject) => {
    execFile(WS_PYTHON, [PY_CLIENT, url, ...(protocol ? [protocol] : [])], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${url}: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as PyWsReport);
    });
  });
}

/** Many python3-websockets runs at once in one interpreter (its start is most of a run's CPU): reports in the targets' order. */
export function pythonWebsocketsAtOnce(targets: readonly { readonly url: string; readonly protocol?: string }[]): Promise<PyWsReport[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(WS_PYTHON, [PY_CLIENT, '-'], { timeout: 60_000, maxBuffer: 4 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`python3-websockets, ${targets.length} runs: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as PyWsReport[]);
    });
    child.stdin?.end(JSON.stringify(targets.map(({ url, protocol }) => [url, protocol ?? null])));
  });
}

/** A Chromium run: the page's events, and the console lines the browser logged meanwhile (CDP Log.entryAdded). */
export interface ChromiumWsSeen {
  readonly open: boolean;
  readonly messages: number;
  readonly error: boolean;
  readonly code: number | null;
  readonly console: readonly string[];
}

/** Opens WebSockets from `page`, one at a time, reading the console of the page's browser over CDP. */
export async function chromiumWebSocket(page: Page): Promise<(url: string, protocol?: string) => Promise<ChromiumWsSeen>> {
  const cdp = await page.context().newCDPSession(page);
  const logs: string[] = [];
  await cdp.send('Log.enable');
  cdp.on('Log.entryAdded', (event: { entry: { text: string } }) => logs.push(event.entry.text));
  return async (url, protocol) => {
    logs.length = 0;
    const seen = await page.evaluate(
      ({ url, protocol, quietMs, openMs }) =>
        new Promise<Omit<ChromiumWsSeen, 'console'>>((resolve) => {
          const seen = { open: false, messages: 0, error: false, code: null as number | null };
          const ws = new WebSocket(url, protocol);
          let quiet = setTimeout(() => {
            ws.onclose = null;
            ws.close();
            resolve(seen);
          }, openMs);
          const alive = (ms = quietMs): void => {
            clearTimeout(quiet);
            quiet = setTimeout(() => {
              ws.onclose = null;
              ws.close();
              resolve(seen);
            }, ms);
          };
          ws.onopen = () => {
            seen.open = true;
            alive();
          };
          ws.onmessage = () => {
            seen.messages++;
            alive();
          };
          ws.onerror = () => {
            seen.error = true;
            alive(openMs);
          };
          ws.onclose = (event) => {
            seen.code = event.code;
            clearTimeout(quiet);
            resolve(seen);
          };
        }),
      { url, protocol, quietMs: QUIET_MS, openMs: OPEN_WAIT_MS },
    );
    return { ...seen, console: logs.splice(0) };
  };
}
