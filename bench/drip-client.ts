// The client side of the streams benchmark, run as its own process so its
// work does not land in the server's RSS or event loop. Raw node:net sockets.
// Two phases: first every socket connects (a bounded number of handshakes at
// a time, so the server's accept queue never overflows into SYN retries), then
// the requests go out at an even pace over `rampMs`. With connectPerRequest
// there is one phase: each socket connects when its request is due and sends
// it once connected (a server that closes a connection idle for 1 s before its
// first request, as go-httpbin does, never sees an idle one). Each stream reads the
// head, counts body bytes up to Content-Length, and records when its first and
// last bytes arrived.
import net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface DripClientOptions {
  readonly port: number;
  readonly streams: number;
  /** Path and query of each request, e.g. /drip?bytes=100&chunk=10&interval=200. */
  readonly path: string;
  /** Requests are sent at an even pace over this long, once every socket is connected. */
  readonly rampMs: number;
  /** A stream not complete this long after its request counts as failed. */
  readonly timeoutMs: number;
  /** Host header (default 127.0.0.1:<port>): the front door routes on it. */
  readonly host?: string;
  /** Connect each socket when its request is due, and send on connect (no 'connected' phase). */
  readonly connectPerRequest?: boolean;
  /** The C client only (bench/held-client.c): the body is a chunk of this many bytes every `intervalMs`; each chunk is judged. */
  readonly chunk?: { readonly bytes: number; readonly intervalMs: number };
  /** The C client only: connect from 127.0.0.1 … 127.0.0.N in turn (more ephemeral ports than one address has). */
  readonly sources?: number;
  /** The C client only: a complete response's socket stays open, idle, until the runner lets the client go. */
  readonly keepOpen?: boolean;
}

/** Each chunk's arrival against first byte + k × interval (the C client's --chunk-bytes). */
export interface ChunkLateness {
  readonly count: number;
  readonly within10Ms: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface StreamTiming {
  /** When the first response byte arrived, from the start of the request ramp. */
  readonly firstAtMs: number;
  /** From the request being written to the first response byte. */
  readonly firstByteMs: number;
  /** From the first response byte to the last body byte. */
  readonly spanMs: number;
}

export interface DripClientResult {
  readonly type: 'result';
  readonly timings: StreamTiming[];
  readonly failed: number;
  readonly failures: Record<string, number>;
  /** Most streams that were between first byte and last byte at once. */
  readonly maxInFlight: number;
  readonly connectMs: number;
  readonly rampActualMs: number;
  /** The client's own event-loop delay: its timestamps can be late by up to this much. */
  readonly clientLoopDelayP99Ms: number;
  readonly clientLoopDelayMaxMs: number;
  /** The C client only: CLOCK_MONOTONIC at the start of the ramp, in ns (a server's own monotonic log lines up with the timings). */
  readonly rampStartNs?: number;
  /** With `chunk`: every chunk's lateness. */
  readonly chunks?: ChunkLateness;
}

/** Messages the client sends before its result, so the parent can sample the server at each phase. */
export interface DripClientPhase {
  readonly type: 'phase';
  readonly phase: 'connected' | 'requested';
}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
/** Handshakes in progress at once: well under the server's listen backlog (511). */
const CONNECTS_AT_ONCE = 200;
/** Requests are written in batches this often during the ramp. */
const TICK_MS = 5;

class Stream {
  sentAt = 0;
  firstAt = 0;
  #head: Buffer | undefined = Buffer.alloc(0);
  #bodyExpected = -1;
  #bodySeen = 0;
  #done = false;
  #timer: NodeJS.Timeout | undefined;
  readonly socket: net.Socket;

  constructor(
    port: number,
    private readonly onConnect: (stream: Stream) => void,
    private readonly onFirstByte: () => void,
    private readonly onSettle: (stream: Stream, timing: StreamTiming | undefined, failure?: string) => void,
    private readonly rampStart: () => number,
  ) {
    this.socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    this.socket.once('connect', () => this.onConnect(this));
    this.socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.socket.on('error', (error: NodeJS.ErrnoException) => this.#settle(undefined, error.code ?? 'socket error'));
    this.socket.on('close', () => this.#settle(undefined, 'closed early'));
  }

  send(request: Buffer, timeoutMs: number): void {
    if (this.#done) return;
    this.sentAt = performance.now();
    this.#timer = setTimeout(() => this.#settle(undefined, 'timeout'), timeoutMs);
    this.socket.write(request);
  }

  #onData(chunk: Buffer): void {
    const now = performance.now();
    if (this.firstAt === 0) {
      this.firstAt = now;
      this.onFirstByte();
    }
    if (this.#head !== undefined) {
      this.#head = Buffer.concat([this.#head, chunk]);
      const end = this.#head.indexOf(HEAD_END);
      if (end < 0) return;
      const text = this.#head.subarray(0, end).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
      const length = /\r\ncontent-length: *(\d+)/i.exec(text)?.[1];
      if (status !== '200' || length === undefined) {
        this.#settle(undefined, `status ${status ?? '?'}`);
        return;
      }
      this.#bodyExpected = Number(length);
      this.#bodySeen = this.#head.length - end - HEAD_END.length;
      this.#head = undefined;
    } else {
      this.#bodySeen += chunk.length;
    }
    if (this.#bodySeen >= this.#bodyExpected) {
      this.#settle({ firstAtMs: this.firstAt - this.rampStart(), firstByteMs: this.firstAt - this.sentAt, spanMs: now - this.firstAt });
    }
  }

  #settle(timing: StreamTiming | undefined, failure?: string): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#timer);
    this.socket.destroy();
    this.onSettle(this, timing, failure);
  }
}

export function runDripClient(options: DripClientOptions, onPhase: (phase: DripClientPhase) => void = () => {}): Promise<DripClientResult> {
  const timings: StreamTiming[] = [];
  const failures: Record<string, number> = {};
  const connected: Stream[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let opened = 0;
  let settled = 0;
  let handshakes = 0;
  let connectPhaseOver = false;
  const request = Buffer.from(`GET ${options.path} HTTP/1.1\r\nHost: ${options.host ?? `127.0.0.1:${options.port}`}\r\n\r\n`, 'latin1');
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  const connectStart = performance.now();
  let rampStart = 0;
  let rampEnd = 0;

  return new Promise((resolve) => {
    const finish = (): void => {
      loopDelay.disable();
      resolve({
        type: 'result',
        timings,
        failed: options.streams - timings.length,
        failures,
        maxInFlight,
        connectMs: rampStart - connectStart,
        rampActualMs: rampEnd - rampStart,
        clientLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
        clientLoopDelayMaxMs: loopDelay.max / 1e6,
      });
    };

    const onConnect = (stream: Stream): void => {
      handshakes--;
      if (options.connectPerRequest) {
        stream.send(request, options.timeoutMs);
        return;
      }
      connected.push(stream);
      openMore();
    };
    const onFirstByte = (): void => {
      inFlight++;
      if (inFlight > maxInFlight) maxInFlight = inFlight;
    };
    const onSettle = (stream: Stream, timing: StreamTiming | undefined, failure?: string): void => {
      if (stream.firstAt > 0) inFlight--;
      if (timing) timings.push(timing);
      else failures[failure ?? 'unknown'] = (failures[failure ?? 'unknown'] ?? 0) + 1;
      if (options.connectPerRequest) {
        if (stream.sentAt === 0) handshakes--;
      } else if (!connectPhaseOver && stream.sentAt === 0) {
        // Failed while connecting: it will never be sent.
        if (!connected.includes(stream)) handshakes--;
        openMore();
      }
      settled++;
      if (settled === options.streams) finish();
    };

    const openMore = (): void => {
      while (handshakes < CONNECTS_AT_ONCE && opened < options.streams) {
        opened++;
        handshakes++;
        new Stream(options.port, onConnect, onFirstByte, onSettle, () => rampStart);
      }
      if (!connectPhaseOver && opened === options.streams && handshakes === 0) {
        connectPhaseOver = true;
        startRamp();
      }
    };

    const startRamp = (): void => {
      onPhase({ type: 'phase', phase: 'connected' });
      loopDelay.enable();
      rampStart = performance.now();
      const total = connected.length;
      let sent = 0;
      const pace = setInterval(() => {
        // Catch up to where an even pace would be by now.
        const due = Math.min(total, Math.ceil(((performance.now() - rampStart) / options.rampMs) * total));
        for (; sent < due; sent++) (connected[sent] as Stream).send(request, options.timeoutMs);
        if (sent >= total) {
          clearInterval(pace);
          rampEnd = performance.now();
          onPhase({ type: 'phase', phase: 'requested' });
        }
      }, TICK_MS);
    };

    // One phase: sockets open at the pace requests are due, at most CONNECTS_AT_ONCE handshakes at a time.
    const rampConnects = (): void => {
      loopDelay.enable();
      rampStart = performance.now();
      const pace = setInterval(() => {
        const due = Math.min(options.streams, Math.ceil(((performance.now() - rampStart) / options.rampMs) * options.streams));
        while (opened < due && handshakes < CONNECTS_AT_ONCE) {
          opened++;
          handshakes++;
          new Stream(options.port, onConnect, onFirstByte, onSettle, () => rampStart);
        }
        if (opened >= options.streams) {
          clearInterval(pace);
          rampEnd = performance.now();
          onPhase({ type: 'phase', phase: 'requested' });
        }
      }, TICK_MS);
    };

    if (options.connectPerRequest) rampConnects();
    else openMore();
  });
}

// As a forked child: options arrive as one JSON argument; phases and the result go back over IPC.
if (process.send && process.argv[2]) {
  const options = JSON.parse(process.argv[2]) as DripClientOptions;
  const send = (message: DripClientPhase | DripClientResult): void => void process.send?.(message);
  const result = await runDripClient(options, send);
  process.send(result, () => process.exit(0));
}
