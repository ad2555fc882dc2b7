// The chaos host's transport: one client connection. It reads and parses
// requests, keeps pipelined ones in order, owns every timer (header read,
// idle, hold, stall, linger) and back-pressure, and decides what becomes of the
// connection after each response (keep-alive, close, hold, reset). What a
// request means is not its business: it hands each one to its host.
//
// A connection from a peer in TRUST_PROXY (our HAProxy) first goes through one more stage: it must open
// with a PROXY v2 header (shared/config/proxy-v2.ts), which names the client; only the bytes after it reach the HTTP
// parser. Any other connection goes straight to the parser, which refuses a PROXY header as the malformed
// request it is there (400, close): a client never names itself. A trusted peer that sends no header is
// refused too, rather than taken for the client: HAProxy always sends one (send-proxy-v2), and counting
// the proxy's own address would put every client behind it on one limit.
//
// The socket may be a tls.TLSSocket (the transport seam, docs/architecture.md).
import type { Socket } from 'node:net';
import type { Config } from '../../shared/config/config.js';
import type { Exchange } from '../../shared/pipeline/observe.js';
import { PLAIN_HTTP1, type TransportFacts } from '../../shared/pipeline/transport.js';
import { ClientChecks } from '../../shared/registry/rate-limit.js';
import { peerAddress } from '../../shared/config/trust.js';
import { RequestParser, RequestRejected, type ParsedRequest, type ParserEvents, type ParserLimits, type ParserOptions } from './parser.js';
import { ProxyHeaderReader, type ClientOf } from '../../shared/config/proxy-v2.js';
import { startsPreface } from './http2/frames.js';
import { ConnectionTimers, type TimerOwner } from './connection-timers.js';
import { listenToSocket, type SocketEvents } from './socket-events.js';
import { destroyFlushed, resetSocket } from './turn-writes.js';
import { Wire, type EndAction, type WireOwner } from './wire.js';

/** What a connection needs from the server that accepted it. */
export interface ConnectionHost {
  readonly config: Config;
  readonly limits: ParserLimits;
  /** From the first byte of a request until it is complete (slowloris guard): 408 after. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly idleTimeoutMs: number;
  /** A connection that has not sent a request yet is closed after this. */
  readonly firstRequestTimeoutMs: number;
  /** How long a connection whose response promised more bytes is held open. */
  readonly holdMs: number;
  readonly maxRequestsPerConnection: number;
  readonly draining: boolean;
  /** Answers one request; true means "wait before the next one" (the store is deciding) until the connection's resume(). */
  request(connection: Connection, req: ParsedRequest, keepAlive: boolean): boolean;
  /** The parser's options (what it keeps of a request beyond the default, when some endpoint asks), the same for every connection. */
  readonly parserOptions: ParserOptions | undefined;
  /** Takes over a connection that opened with the HTTP/2 preface (prior knowledge); `head`: the bytes read so far. */
  http2?(socket: Socket, head: Buffer, clientAddress: string, transport: TransportFacts): void;
  /** Answers input the parser refused; the connection closes after it. */
  rejected(connection: Connection, rejection: RequestRejected): void;
  /** A client's rate checks, shared by its connections (a client that connects per request builds them once). */
  checksFor(clientAddress: string): ClientChecks;
  /** The connection's socket has closed. */
  connectionClosed?(connection: Connection): void;
}

/** The response in progress. */
interface Active {
  readonly wire: Wire;
  readonly keepAlive: boolean;
  readonly exchange: Exchange | undefined;
  /** Run once the response no longer occupies the connection (see whenDone). */
  done?: (() => void)[];
}

/** Parsed requests waiting behind the active response; beyond this we stop parsing and reading. */
const MAX_QUEUED_REQUESTS = 16;
/** After our FIN, a client that never closes its side is cut off after this. */
const LINGER_MS = 5_000;

type Queued = ParsedRequest | RequestRejected;

export class Connection implements WireOwner, ParserEvents, TimerOwner, SocketEvents {
  readonly #parser: RequestParser;
  readonly #queue: Queued[] = [];
  #active: Active | undefined;
  /** Callbacks of a response that ended but whose connection lives on for it (a hold, a close): run when the socket closes. */
  #doneAtClose: (() => void)[] | undefined;
  #served = 0;
  readonly #openedAt = performance.now();
  #pumping = false;
  #clientEnded = false;
  #closing = false;
  #closed = false;
  /** A response promised bytes that never come: nothing more is read or answered. */
  #holding = false;
  /** A request waits for the rate limiter's answer: nothing else is dispatched meanwhile. */
  #gated = false;
  /** This client's rate checks, built on its first request and kept for the connection's life. */
  #checks: ClientChecks | undefined;
  /** A request asked for 100 Continue; sent once every earlier response is out. */
  #continuePending = false;
  /** The socket's output buffer is full: the next pipelined response waits for 'drain'. */
  #waitingDrain = false;
  readonly #timers: ConnectionTimers;
  /** Who the limits count: the PROXY header's source, or the socket's peer, read when first asked (a getpeername call: no limit, no cost). */
  #clientAddress: string | undefined;
  /** The trusted proxy's own connection (PROXY v2 LOCAL), not a client's. */
  #proxySelf: boolean;
  /** A trusted peer's PROXY v2 header, as much of it as arrived; undefined once read, for any other peer (nobody is trusted by default), or when the TLS listener read it before the hello (`client`). */
  #proxyHeader: ProxyHeaderReader | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly host: ConnectionHost,
    /** What the socket is (plain, or TLS with what its handshake agreed), every request carries it; and whom it serves, if known. */
    private readonly transport: TransportFacts = PLAIN_HTTP1,
    client?: ClientOf,
  ) {
    // The connection is the parser's events object and the timers' owner: no closures per connection.
    this.#parser = new RequestParser(this, host.limits, host.parserOptions, transport);
    this.#timers = new ConnectionTimers(this, socket);
    this.#clientAddress = client?.address;
    this.#proxySelf = client?.proxySelf ?? false;
    if (client === undefined && !host.config.trustProxy.empty && host.config.trustProxy.isTrusted(this.clientAddress)) this.#proxyHeader = new ProxyHeaderReader();
    listenToSocket(socket, this);
    this.#settle();
  }

  /** Parser event: a request is complete; the next one gets its own full header-read time. */
  onRequest(request: ParsedRequest): void {
    // What follows a request to switch protocols may be the new protocol's: held until its response ends.
    if (request.headers.has('upgrade')) this.#parser.holdForUpgrade();
    this.#continuePending = false;
    this.#timers.clearRequest();
    this.#enqueue(request);
  }

  /** Parser event: the input was refused. */
  onReject(rejection: RequestRejected): void {
    this.#continuePending = false;
    this.#timers.clearRequest();
    this.#enqueue(rejection);
  }

  /** Parser event: the request asked for 100 Continue. */
  onContinue(): void {
    this.#continuePending = true;
    this.#sendContinue();
  }

  /** Timer: the request head (or the PROXY header) did not arrive in time. */
  onRequestTimeout(): void {
    if (this.#proxyHeader !== undefined) {
      this.#refuseProxyHeader(new RequestRejected(408, 'PROXY protocol header not received in time'));
      return;
    }
    this.#parser.stop();
    this.#enqueue(new RequestRejected(408, 'request not received in time'));
  }

  /** Timer: nothing came while idle. */
  onIdleTimeout(): void {
    this.#close();
  }

  /** Timer: a held response's time is over. */
  onHoldTimeout(): void {
    this.#close();
  }

  onSocketData(chunk: Buffer): void {
    this.#timers.disarmIdle();
    // After a rejection, a hold or our FIN, input is read and dropped (lingering close).
    if (this.#parser.dead) return;
    if (this.#proxyHeader !== undefined) {
      const rest = this.#readProxyHeader(this.#proxyHeader, chunk);
      if (rest === undefined) return;
      chunk = rest;
    }
    if (this.#served === 0 && this.host.http2 && (this.transport.protocol === 'h2' || (!this.transport.tls && startsPreface(chunk))) && !this.#parser.midRequest) {
      // Prior knowledge on cleartext, or ALPN h2 (the TLS listener's facts say h2; never alpn-lie's, whose lie is an HTTP/1.1 answer): the socket goes to the HTTP/2 session, this object goes inert.
      this.#closing = this.#closed = true;
      this.#timers.clearAll();
      this.#parser.stop();
      return this.host.http2(this.socket, chunk, this.clientAddress, this.transport);
    }
    this.#parser.push(chunk);
    this.#afterInput();
  }

  /**
   * A trusted peer's PROXY v2 header (see the top of the file): what follows it, or undefined while it is incomplete
   * or once refused. One that stops short gets the request-head time (408 after); a client that closes is closed.
   */
  #readProxyHeader(reader: ProxyHeaderReader, chunk: Buffer): Buffer | undefined {
    const header = reader.read(chunk);
    if (header.kind === 'need-more') return void this.#timers.armRequest(this.host.requestTimeoutMs);
    if (header.kind === 'reject') return void this.#refuseProxyHeader(new RequestRejected(400, header.reason));
    if (header.kind === 'proxied') this.#clientAddress = header.source;
    // LOCAL: the proxy speaks for itself (a health check), and no limit counts it.
    else this.#proxySelf = true;
    this.#proxyHeader = undefined;
    this.#timers.clearRequest();
    return reader.rest;
  }

  /** A PROXY header that is not one: answered through the parser's rejection path, then closed. */
  #refuseProxyHeader(rejection: RequestRejected): void {
    this.#proxyHeader = undefined;
    this.#timers.clearRequest();
    this.#parser.stop();
    this.#enqueue(rejection);
  }

  /**
   * The client's FIN. Read as "gave up", the way nginx (499) and node:http do:
   * the response in progress stops and its timers die, queued requests are
   * dropped, and we close. What was already written still goes out before our FIN.
   */
  onSocketEnd(): void {
    this.#clientEnded = true;
    const active = this.#active;
    this.#active = undefined;
    this.#queue.length = 0;
    if (active) this.#abort(active);
    this.#settle();
  }

  /** Input backpressure, the header-read timer and the idle timer, after the parser moved. */
  #afterInput(): void {
    if (this.#closing || this.#closed) return;
    if (this.#parser.paused) this.socket.pause();
    else if (this.socket.isPaused() && !this.#holding) this.socket.resume();
    this.#armRequestTimer();
    // Input that completed nothing (empty lines) must not leave the connection without a timer.
    this.#settle();
  }

  /** From the first byte of a request until it is complete; not while we hold parsing ourselves. */
  #armRequestTimer(): void {
    if (!this.#parser.midRequest || this.#parser.paused) this.#timers.clearRequest();
    else this.#timers.armRequest(this.host.requestTimeoutMs);
  }

  #enqueue(item: Queued): void {
    this.#queue.push(item);
    // Input backpressure: stop parsing (and, after this chunk, reading) while many requests wait.
    if (this.#queue.length >= MAX_QUEUED_REQUESTS) this.#parser.pause();
    this.#pump();
  }

  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (!this.#active && !this.#gated && !this.#closing && !this.#closed && !this.#waitingDrain && this.#queue.length > 0) {
        // Output backpressure: a client that pipelines without reading gets no more responses
        // written until it reads; meanwhile nothing more is parsed or read (bounded memory).
        if (this.socket.writableNeedDrain) {
          this.#waitForDrain();
          break;
        }
        const item = this.#queue.shift() as Queued;
        if (item instanceof RequestRejected) this.host.rejected(this, item);
        else this.#dispatch(item);
        // Room in the queue again: parse what was held back, then read on.
        if (this.#parser.paused && this.#queue.length < MAX_QUEUED_REQUESTS / 2) {
          this.#parser.resume();
          this.#afterInput();
        }
      }
    } finally {
      this.#pumping = false;
    }
    this.#sendContinue();
    this.#settle();
  }

  #waitForDrain(): void {
    this.#waitingDrain = true;
    this.socket.once('drain', () => {
      this.#waitingDrain = false;
      this.#timers.clearStall();
      this.#pump();
    });
    this.#timers.armStall(this.host.idleTimeoutMs);
  }

  /** The interim 100 goes out only between responses, never inside one. */
  #sendContinue(): void {
    if (!this.#continuePending || this.#active || this.#gated || this.#queue.length > 0 || this.#closing || this.#closed) return;
    this.#continuePending = false;
    this.socket.write('HTTP/1.1 100 Continue\r\n\r\n', 'latin1');
    // The body only starts now: give it the full request time.
    this.#timers.clearRequest();
    this.#armRequestTimer();
  }

  /** Decides what an idle connection does: wait for the next request, or close. */
  #settle(): void {
    if (this.#active || this.#gated || this.#closing || this.#closed || this.#queue.length > 0) return;
    if (this.#holding) {
      if (this.#clientEnded) this.#close();
      return;
    }
    if (this.#clientEnded || this.host.draining || this.#parser.dead) {
      if (!this.#parser.midRequest || this.#clientEnded) this.#close();
      return;
    }
    if (!this.#parser.midRequest && !this.#timers.idleArmed) {
      // A connection that has not made a request yet gets a shorter wait: idle
      // sockets cost a descriptor each and count against nobody's rate limit.
      this.#timers.armIdle(this.#served === 0 ? this.host.firstRequestTimeoutMs : this.host.idleTimeoutMs);
    }
  }

  /** Called on shutdown: idle connections close now, busy ones after their response. */
  drain(): void {
    this.#settle();
  }

  destroy(): void {
    destroyFlushed(this.socket);
  }

  #close(): void {
    if (this.#closing || this.#closed) return;
    this.#closing = true;
    this.#parser.stop();
    this.#queue.length = 0;
    this.#timers.clearAll();
    this.socket.end();
    // Keep reading (and dropping) until the client closes: closing with unread input would send RST, and could lose the response.
    this.socket.resume();
    this.#timers.armLinger(LINGER_MS);
  }

  onSocketClose(): void {
    this.#closed = true;
    this.#timers.clearAll();
    this.#timers.clearLinger();
    this.#parser.stop();
    this.#queue.length = 0;
    const active = this.#active;
    this.#active = undefined;
    if (active) this.#abort(active);
    runAll(this.#doneAtClose);
    this.#doneAtClose = undefined;
    this.host.connectionClosed?.(this);
  }

  /** The client went away mid-response: every wait of the response dies, and it is observed as incomplete. */
  #abort(active: Active): void {
    active.wire.socketClosed();
    active.exchange?.finish(active.wire.status ?? 0, active.wire.bytesWritten, false);
    runAll(active.done);
  }

  finished(wire: Wire, action: EndAction): void {
    if (this.#active?.wire !== wire) return;
    const { keepAlive, exchange, done } = this.#active;
    this.#active = undefined;
    exchange?.finish(wire.status ?? 0, wire.bytesWritten, true);
    // A HEAD response promised no body, so there is nothing to wait for.
    const effective: EndAction = action === 'hold' && wire.headOnly ? 'keep-alive' : action;
    // A response that keeps the connection (a hold) occupies it until the socket closes.
    if (effective === 'keep-alive' || !done) runAll(done);
    else (this.#doneAtClose ??= []).push(...done);
    switch (effective) {
      case 'keep-alive':
        if (!keepAlive) return this.#close();
        // An upgrade request answered without a switch: what followed it is HTTP (parsed now, then read on).
        if (this.#parser.releaseUpgrade()) this.#afterInput();
        return this.#pump();
      case 'close':
        return this.#close();
      case 'hold':
      case 'upgrade':
        // No bytes to come (hold), or another protocol's (upgrade, its socket's until the cap, with the bytes that came after the request): answer nothing more, but read so the client's close is noticed.
        this.#holding = true;
        if (effective === 'upgrade') this.#parser.handBackRest(this.socket);
        this.#parser.stop();
        this.#queue.length = 0;
        this.#timers.clearRequest();
        this.socket.resume();
        this.#timers.armHold(effective === 'hold' ? this.host.holdMs : this.host.config.maxResponseMs + LINGER_MS);
        if (this.#clientEnded) this.#close();
        return;
      case 'reset':
        this.#closing = true;
        this.#parser.stop();
        this.#queue.length = 0;
        this.#timers.clearAll();
        return resetSocket(this.socket);
    }
  }

  /** The client's address: the socket's peer, or the PROXY header's source when the peer is a trusted proxy. */
  get clientAddress(): string {
    return (this.#clientAddress ??= peerAddress(this.socket.remoteAddress));
  }

  /** This client's rate checks, one set per connection (one client address). */
  get checks(): ClientChecks {
    return (this.#checks ??= this.#proxySelf ? new ClientChecks(this.host.config, 'chaos', this.clientAddress, false) : this.host.checksFor(this.clientAddress));
  }

  /** Opens the wire of the next response; it is the connection's active response until it ends. */
  openWire(headOnly: boolean, keepAlive: boolean, exchange: Exchange | undefined): Wire {
    const wire = new Wire(this.socket, this, headOnly, this.host.idleTimeoutMs);
    this.#active = { wire, keepAlive, exchange };
    return wire;
  }

  /** Drops a response nothing was written for (its timers die), so another can answer in its place. */
  abandon(wire: Wire): void {
    wire.socketClosed();
    if (this.#active?.wire !== wire) return;
    const { done } = this.#active;
    this.#active = undefined;
    runAll(done);
  }

  /** Runs `fn` once the response on `wire` no longer occupies the connection: when it ends and the connection is free for the next,
   * or, for a response that holds or closes it, when the socket closes; at once for a wire that is not the active response any more. */
  whenDone(wire: Wire, fn: () => void): void {
    const active = this.#active;
    // A one-slot list for the usual one callback (an empty list grown by push has 17 slots, kept for the whole hold).
    if (active?.wire !== wire) fn();
    else if (active.done) active.done.push(fn);
    else active.done = [fn];
  }

  #dispatch(req: ParsedRequest): void {
    this.#served++;
    const keepAlive =
      req.keepAlive &&
      !this.#clientEnded &&
      !this.host.draining &&
      this.#served < this.host.maxRequestsPerConnection &&
      // A connection's life is bounded too: a client cannot chain long responses for days.
      performance.now() - this.#openedAt < this.host.config.maxConnectionMs;
    // A store that needs a round trip (Redis): the connection waits, so
    // responses keep request order, until resume().
    if (this.host.request(this, req, keepAlive)) this.#gated = true;
  }

  /** The request the host made us wait for has been decided (see ConnectionHost.request): the next may go. */
  resume(): void {
    this.#gated = false;
    if (this.#closed || this.#closing) return;
    this.#pump();
  }
}

function runAll(callbacks: readonly (() => void)[] | undefined): void {
  if (callbacks) for (const fn of callbacks) fn();
}
