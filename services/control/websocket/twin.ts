// The control host's WebSockets: the well-formed twins of the chaos ones,
// built on `ws` (which passes the Autobahn suite) with noServer, on the socket
// node:http's 'upgrade' event handed over (shared/http/upgrades.ts). The same
// bounds as chaos: MAX_RESPONSE_MS, the idle time, the client's frame and
// message sizes (ws closes 1009 past maxPayload), an echo rate-limited in
// bytes per second; the 101 carries the control lines (X-Chaos-Origin,
// X-Chaos-Counterpart), and a plain GET is the same real 426.
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { LIFETIME_REASON, WS_BOUNDS } from '../../../shared/content/websocket.js';
import type { HttpContext } from '../../../shared/http/http-service.js';
import { markSwitched, takeUpgrade } from '../../../shared/http/upgrades.js';
import type { HeaderList } from '../../../shared/primitives/headers.js';
import { respondInTurn } from '../../../shared/primitives/turn-ends.js';
import { errorResponse } from '../../../shared/registry/errors.js';

/** What a twin does beyond an honest echo server. */
export interface TwinScript {
  /** Right after the 101. */
  opened?(ws: WebSocket): void;
  /** A complete message (`index` counts from 0); absent: echoed. */
  message?(ws: WebSocket, data: Buffer, binary: boolean, index: number): void;
}

/** The lines each upgrade's 101 carries, set just before ws writes it ('headers' event). */
const linesOf = new WeakMap<IncomingMessage, HeaderList>();

function server(perMessageDeflate: boolean): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_BOUNDS.maxMessageBytes, perMessageDeflate, clientTracking: false });
  wss.on('headers', (headers: string[], req: IncomingMessage) => {
    for (const [name, value] of linesOf.get(req) ?? []) headers.push(`${name}: ${value}`);
  });
  return wss;
}

const PLAIN = server(false);
/** permessage-deflate negotiated as RFC 7692 says (ws's own negotiation): /ws/deflate's twin. */
const DEFLATE = server(true);

/** Serves the request as a WebSocket running `script`, or answers a plain request with the real 426. */
export function serveTwin(ctx: HttpContext, script: TwinScript, options: { readonly deflate?: boolean } = {}): void {
  const upgrade = takeUpgrade(ctx.req);
  if (upgrade === undefined || !/\bwebsocket\b/i.test(ctx.req.headers.upgrade ?? '')) {
    const refusal = errorResponse(426, `${ctx.endpoint.path} is a WebSocket endpoint: open it with a WebSocket client (GET with Upgrade: websocket)`, [['Upgrade', 'websocket']]);
    respondInTurn(ctx.res, 426, refusal.headers.flat(), ctx.req.method === 'HEAD' ? undefined : refusal.body);
    return;
  }
  linesOf.set(ctx.req, ctx.headers);
  const wss = options.deflate === true ? DEFLATE : PLAIN;
  // A bad key or version: ws answers 400 and closes the socket itself.
  wss.handleUpgrade(ctx.req, upgrade.socket, upgrade.head, (ws) => {
    markSwitched(ctx.req);
    run(ws, ctx.config.maxResponseMs, ctx.config.wsEchoBytesPerSecond, script);
  });
}

/** The bounds and the echo around a script. */
function run(ws: WebSocket, lifeMs: number, echoRate: number, script: TwinScript): void {
  const timers = new Set<NodeJS.Timeout>();
  const after = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  ws.on('close', () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  });
  after(lifeMs, () => ws.close(1001, LIFETIME_REASON));
  let lastInput = performance.now();
  const idle = (ms: number): void =>
    after(ms, () => {
      const left = WS_BOUNDS.idleMs - (performance.now() - lastInput);
      if (left > 0 || ws.isPaused) idle(Math.max(left, 1000));
      else ws.close(1001, `no frame from the client for ${WS_BOUNDS.idleMs / 1000} s`);
    });
  idle(WS_BOUNDS.idleMs);
  ws.on('ping', () => (lastInput = performance.now()));
  ws.on('pong', () => (lastInput = performance.now()));
  let budget: number = WS_BOUNDS.maxMessageBytes;
  let refilledAt = performance.now();
  let index = 0;
  ws.on('message', (data: RawData, binary: boolean) => {
    lastInput = performance.now();
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (script.message) script.message(ws, bytes, binary, index++);
    else ws.send(bytes, { binary });
    // The echo's rate, as on chaos: past the budget, reading pauses until it is paid back.
    const now = performance.now();
    budget = Math.min(WS_BOUNDS.maxMessageBytes, budget + ((now - refilledAt) * echoRate) / 1000) - bytes.length;
    refilledAt = now;
    if (budget < 0 && !ws.isPaused) {
      ws.pause();
      after(Math.ceil((-budget * 1000) / echoRate), () => ws.resume());
    }
  });
  script.opened?.(ws);
}
