// One WebSocket after its 101 on the chaos host: the socket, the client's
// frames through the bounded reader, and the server's side of the protocol
// (pong, echo, the close handshake) unless the endpoint's script says
// otherwise. Every wait is a timer of the session, cleared when the socket
// closes; the bounds of issue 27: the connection lives at most
// MAX_RESPONSE_MS, idles at most 30 s, and the echo is rate-limited in bytes
// per second, so the host is no free reflector.
import type { Socket } from 'node:net';
import { LIFETIME_REASON, WS_BOUNDS } from '../../../shared/content/websocket.js';
import { closeFrame, closePayload, encodeFrame, OPCODES, type FrameSpec } from './frame.js';
import { FrameReader, MAX_MESSAGE_BYTES, type ClientEvent } from './reader.js';
import { flushTurn, resetSocket } from '../turn-writes.js';

/** A connection with no frame from the client for this long is closed (1001). */
export const IDLE_MS = WS_BOUNDS.idleMs;
/** What the echo sends back per second, on average; a burst of one whole message goes at once. */
export const ECHO_BYTES_PER_SECOND = WS_BOUNDS.echoBytesPerSecond;
/** After our close frame (or FIN), the client gets this long to close its side before the socket is destroyed. */
const LINGER_MS = 5_000;

/** What an endpoint changes in the session's honest behaviour; each hook left out behaves as the RFC says. */
export interface SessionScript {
  /** Right after the 101. */
  opened?(session: WsSession): void;
  /** A complete message from the client (`index` counts from 0); absent: echoed. */
  message?(session: WsSession, data: Buffer, binary: boolean, index: number): void;
  /** A ping from the client; absent: answered with a pong of the same payload. */
  ping?(session: WsSession, data: Buffer): void;
  /** The client's close frame; return true to ignore it (the session then waits for its cap). */
  clientClose?(session: WsSession, code: number | undefined): boolean;
}

export interface SessionOptions {
  /** The connection's whole life (MAX_RESPONSE_MS, less what the handshake took). */
  readonly lifeMs: number;
  readonly idleMs?: number;
  readonly echoBytesPerSecond?: number;
}

export class WsSession {
  readonly #socket: Socket;
  readonly #reader = new FrameReader();
  readonly #script: SessionScript;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #idleMs: number;
  readonly #echoRate: number;
  /** Echo bytes that may go out now (a token bucket, refilled at echoRate; may go negative: reading pauses until it is paid back). */
  #echoBudget = MAX_MESSAGE_BYTES;
  #echoRefilledAt = performance.now();
  #lastInput = performance.now();
  #messages = 0;
  #closeSent = false;
  #finished = false;
  #closed = false;
  /** Reading paused for the echo's rate or the client's unread output. */
  #pausedFor = 0;

  constructor(socket: Socket, script: SessionScript, options: SessionOptions) {
    this.#socket = socket;
    this.#script = script;
    this.#idleMs = options.idleMs ?? IDLE_MS;
    this.#echoRate = options.echoBytesPerSecond ?? ECHO_BYTES_PER_SECOND;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('close', () => this.#onClose());
    socket.on('error', () => undefined);
    // The cap is the end of the connection whatever the script does: a close frame, then the socket goes.
    this.setTimer(options.lifeMs, () => {
      if (this.#closeSent || this.#script.clientClose !== undefined) this.finish();
      else this.close(1001, LIFETIME_REASON);
    });
    this.#armIdle(this.#idleMs);
    script.opened?.(this);
  }

  /** Messages the client has sent so far. */
  get messages(): number {
    return this.#messages;
  }

  /** The socket closed (or is closing): every send is a no-op. */
  get closed(): boolean {
    return this.#closed || this.#finished;
  }

  /** Writes a frame's bytes as they are (a lie or the truth). */
  sendRaw(bytes: Buffer): void {
    if (this.closed) return;
    this.#socket.write(bytes);
  }

  send(spec: FrameSpec): void {
    this.sendRaw(encodeFrame(spec));
  }

  text(text: string): void {
    this.send({ opcode: OPCODES.text, payload: Buffer.from(text, 'utf8') });
  }

  /** Our close frame (once); the client's answer, or LINGER_MS, ends the connection. */
  close(code: number, reason: string): void {
    if (this.#closeSent) return;
    this.closeRaw(closeFrame(code, reason));
  }

  /** A close frame written as given (a lying code, body or reason). */
  closeRaw(frame: Buffer): void {
    if (this.#closeSent || this.closed) return;
    this.#closeSent = true;
    this.sendRaw(frame);
    this.setTimer(LINGER_MS, () => this.finish());
  }

  /** Our FIN, with no close frame unless one was sent; the socket goes after LINGER_MS if the client stays. */
  finish(): void {
    if (this.closed) return;
    this.#finished = true;
    this.#socket.end();
    this.setTimer(LINGER_MS, () => this.#socket.destroy());
  }

  /** A TCP reset; what this turn held back goes first. */
  reset(): void {
    if (this.#closed) return;
    this.#finished = true;
    flushTurn(this.#socket);
    resetSocket(this.#socket);
  }

  /** A timer that dies with the socket. */
  setTimer(ms: number, fn: () => void): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#closed) fn();
    }, ms);
    this.#timers.add(timer);
  }

  /** Echoes a message, within the echo's rate. */
  echo(data: Buffer, binary: boolean): void {
    this.send({ opcode: binary ? OPCODES.binary : OPCODES.text, payload: data });
    this.#spendEcho(data.length);
  }

  #onData(chunk: Buffer): void {
    this.#lastInput = performance.now();
    for (const event of this.#reader.push(chunk)) {
      this.#handle(event);
      if (this.closed) return;
    }
  }

  #handle(event: ClientEvent): void {
    switch (event.kind) {
      case 'message': {
        const index = this.#messages++;
        if (this.#closeSent) return;
        if (this.#script.message) this.#script.message(this, event.data, event.binary, index);
        else this.echo(event.data, event.binary);
        return;
      }
      case 'ping':
        if (this.#script.ping) this.#script.ping(this, event.data);
        else this.send({ opcode: OPCODES.pong, payload: event.data });
        this.#spendEcho(event.data.length);
        return;
      case 'pong':
        return;
      case 'close':
        if (this.#script.clientClose?.(this, event.code) === true) return;
        // The close handshake (§5.5.1): answered with the client's code, then our FIN.
        if (!this.#closeSent) {
          this.#closeSent = true;
          this.sendRaw(encodeFrame({ opcode: OPCODES.close, payload: closePayload(event.code) }));
        }
        this.finish();
        return;
      case 'fail':
        this.close(event.code, event.reason);
        this.finish();
        return;
    }
  }

  /** Takes `bytes` from the echo's budget; past it, reading pauses until the budget is paid back. */
  #spendEcho(bytes: number): void {
    const now = performance.now();
    this.#echoBudget = Math.min(MAX_MESSAGE_BYTES, this.#echoBudget + ((now - this.#echoRefilledAt) * this.#echoRate) / 1000);
    this.#echoRefilledAt = now;
    this.#echoBudget -= bytes;
    if (this.#echoBudget < 0) this.#pause(Math.ceil((-this.#echoBudget * 1000) / this.#echoRate));
    // A client that does not read what it asked for: read no more until it does.
    else if (this.#socket.writableNeedDrain) {
      this.#pausedFor++;
      this.#socket.pause();
      this.#socket.once('drain', () => this.#resume());
    }
  }

  #pause(ms: number): void {
    this.#pausedFor++;
    this.#socket.pause();
    this.setTimer(ms, () => this.#resume());
  }

  #resume(): void {
    if (--this.#pausedFor === 0 && !this.closed) this.#socket.resume();
  }

  /** Idle: no frame from the client for idleMs (checked against the last input, so input costs no timer). */
  #armIdle(ms: number): void {
    this.setTimer(ms, () => {
      const left = this.#idleMs - (performance.now() - this.#lastInput);
      // Paused reading is our doing, not the client's idleness.
      if (left > 0 || this.#pausedFor > 0) this.#armIdle(Math.max(left, 1000));
      else if (this.#closeSent) this.finish();
      else this.close(1001, `no frame from the client for ${Math.round(this.#idleMs / 1000)} s`);
    });
  }

  #onClose(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
