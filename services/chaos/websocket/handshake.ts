// The opening handshake on the chaos host (RFC 6455 §4): reading the client's
// upgrade request, refusing what is not one as the real error it is (426
// with `Upgrade: websocket`, no X-Chaos-* line), writing the 101 head — with
// its X-Chaos-* lines from the one header helper, and whatever lie the
// endpoint asks for — and handing the socket to a session.
import type { HeaderValue } from '../../../shared/primitives/headers.js';
import { addChaosHeaders, addClampedHeader, chaosBaseHeaders, dateLine, headerLines } from '../../../shared/primitives/headers.js';
import { sendRealError, type ChaosContext } from '../endpoint.js';
import { Wire } from '../wire.js';
import { acceptKey, isValidKey } from './frame.js';
import { IDLE_MS, WsSession, type SessionOptions, type SessionScript } from './session.js';

/** What the client asked for in its upgrade request. */
export interface ClientHandshake {
  readonly key: string;
  /** Sec-WebSocket-Protocol, in the client's order. */
  readonly protocols: readonly string[];
  /** Sec-WebSocket-Extensions as sent; undefined when the client offered none. */
  readonly extensions: string | undefined;
}

/** The parts of a 101 head an endpoint may change; left out, each is what the RFC asks. */
export interface HeadLies {
  /** The status line; default `HTTP/1.1 101 Switching Protocols`. */
  readonly statusLine?: string;
  /** Sec-WebSocket-Accept's value. */
  readonly accept?: string;
  /** False: no `Upgrade: websocket` line. */
  readonly upgrade?: boolean;
  readonly protocol?: string;
  readonly extensions?: string;
}

const tokens = (value: string | undefined): string[] =>
  value === undefined ? [] : value.split(',').map((token) => token.trim()).filter((token) => token !== '');

/**
 * The client's upgrade request; anything else is answered here as a real
 * error and gives undefined: no `Upgrade: websocket` (a plain GET, or
 * another method) → 426; a bad Sec-WebSocket-Key → 400; a version other
 * than 13 → 426 naming 13 (§4.4).
 */
export function readHandshake(ctx: ChaosContext): ClientHandshake | undefined {
  const { req } = ctx;
  const upgrade = tokens(req.headers.get('upgrade')).map((token) => token.toLowerCase());
  if (req.method !== 'GET' || !upgrade.includes('websocket')) {
    sendRealError(ctx, 426, {
      error: 'upgrade_required',
      reason: `${ctx.endpoint.path} is a WebSocket endpoint: open it with a WebSocket client (GET with Upgrade: websocket); the catalog entry and docs/websocket.md describe it`,
    }, [['Upgrade', 'websocket']]);
    return undefined;
  }
  const key = req.headers.get('sec-websocket-key');
  if (!isValidKey(key)) {
    sendRealError(ctx, 400, { error: 'bad_request', reason: 'Sec-WebSocket-Key must be the base64 of 16 bytes' });
    return undefined;
  }
  if (req.headers.get('sec-websocket-version') !== '13') {
    sendRealError(ctx, 426, { error: 'upgrade_required', reason: 'only WebSocket version 13 is served' }, [['Sec-WebSocket-Version', '13']]);
    return undefined;
  }
  return { key, protocols: tokens(req.headers.get('sec-websocket-protocol')), extensions: req.headers.get('sec-websocket-extensions') };
}

/** The 101 head as text: the handshake lines (or their lies), Date, then the X-Chaos-* lines. */
export function switchingHead(ctx: ChaosContext, handshake: ClientHandshake, extra: Readonly<Record<string, HeaderValue>>, lies: HeadLies = {}): string {
  let head = `${lies.statusLine ?? 'HTTP/1.1 101 Switching Protocols'}\r\n`;
  if (lies.upgrade !== false) head += 'Upgrade: websocket\r\n';
  head += 'Connection: Upgrade\r\n';
  head += `Sec-WebSocket-Accept: ${lies.accept ?? acceptKey(handshake.key)}\r\n`;
  if (lies.protocol !== undefined) head += `Sec-WebSocket-Protocol: ${lies.protocol}\r\n`;
  if (lies.extensions !== undefined) head += `Sec-WebSocket-Extensions: ${lies.extensions}\r\n`;
  head += dateLine();
  head += headerLines(addChaosHeaders(addClampedHeader(chaosBaseHeaders(ctx.endpoint), ctx.clamped), extra));
  return `${head}\r\n`;
}

/** The connection's own wire: a WebSocket endpoint runs under no fault stage. */
function wireOf(ctx: ChaosContext): Wire {
  if (!(ctx.wire instanceof Wire)) throw new Error(`${ctx.endpoint.id}: a WebSocket needs the connection's own wire`);
  return ctx.wire;
}

/** The session's bounds: its life, the connection's idle time (30 s by default) as its idle limit, the echo's rate. */
function sessionOptions(wire: Wire, lifeMs: number, echoBytesPerSecond: number): SessionOptions {
  return { lifeMs, idleMs: wire.stallMs > 0 ? wire.stallMs : IDLE_MS, echoBytesPerSecond };
}

/** Writes `head` (a 101, true or not) and hands the socket to a session running `script`. */
export function openSession(ctx: ChaosContext, head: string, script: SessionScript): WsSession {
  const wire = wireOf(ctx);
  wire.rawHead(head);
  return new WsSession(wire.upgrade(), script, sessionOptions(wire, ctx.config.maxResponseMs, ctx.config.wsEchoBytesPerSecond));
}

/** Writes `head` a piece at a time, `pieces` over `ms`, then opens the session (the slow-101 lie). */
export function openSessionSlowly(ctx: ChaosContext, head: string, pieces: number, ms: number, script: SessionScript): void {
  const wire = wireOf(ctx);
  const size = Math.ceil(head.length / pieces);
  let at = 0;
  const step = (): void => {
    const piece = head.slice(at, at + size);
    at += size;
    if (at < head.length) {
      wire.writeRaw(piece, 101);
      wire.setTimer(ms / pieces, step);
      return;
    }
    wire.writeRaw(piece, 101);
    new WsSession(wire.upgrade(), script, sessionOptions(wire, ctx.config.maxResponseMs - ms, ctx.config.wsEchoBytesPerSecond));
  };
  step();
}
