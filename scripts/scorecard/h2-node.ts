// One request over Node's http2.connect (tests and the scorecard's HTTP/2 table), with what a test asserts about it:
// the status and fields, the whole body, the stream's RST code, the session's
// GOAWAY (code, last stream id, debug data), the peer's SETTINGS and any
// pushed streams. Bounded: the session is destroyed after `ms`.
import http2 from 'node:http2';

export interface H2Outcome {
  status?: number;
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  error?: string;
  rstCode?: number;
  goaway?: { code: number; lastStreamId: number; data: string };
  remoteSettings?: http2.Settings;
  pushes: { path: string; status?: number; body: Buffer }[];
  /** The server's END_STREAM was read (the body's 'end'). */
  ended?: true;
  /** The stream was still open at `ms`: the session was destroyed then. */
  timedOut?: true;
  /** From the request to its stream's close (or to `ms`). */
  ms: number;
}

/** An outcome as plain values (no Buffers): what a test matches a cell against, and prints when it differs. */
export interface H2Facts {
  status?: number;
  error?: string;
  rstCode?: number;
  /** The GOAWAY's debug data. */
  goaway?: string;
  bytes: number;
  pushes: number;
  ended: boolean;
  timedOut: boolean;
}

export function h2Facts(out: H2Outcome): H2Facts {
  return {
    ...(out.status === undefined ? {} : { status: out.status }),
    ...(out.error === undefined ? {} : { error: out.error }),
    ...(out.rstCode === undefined ? {} : { rstCode: out.rstCode }),
    ...(out.goaway === undefined ? {} : { goaway: out.goaway.data }),
    bytes: out.body.length,
    pushes: out.pushes.length,
    ended: out.ended === true,
    timedOut: out.timedOut === true,
  };
}

export interface H2Ask {
  readonly method?: string;
  readonly body?: Buffer;
  readonly headers?: http2.OutgoingHttpHeaders;
  readonly settings?: http2.Settings;
  /** After the stream closes, wait this long for a GOAWAY (the twins send theirs after the response). */
  readonly settleMs?: number;
  readonly ms?: number;
  readonly connect?: http2.SecureClientSessionOptions;
}

export function h2Get(origin: string, path: string, ask: H2Ask = {}): Promise<H2Outcome> {
  return new Promise((resolve) => {
    const session = http2.connect(origin, { ...(ask.settings ? { settings: ask.settings } : {}), ...ask.connect });
    const started = performance.now();
    const out: H2Outcome = { headers: {}, body: Buffer.alloc(0), pushes: [], ms: 0 };
    const chunks: Buffer[] = [];
    // Once: the outcome is final when resolved. A deadline left running past a finished request would
    // rewrite it as a timeout (the HTTP/2 walk's hangs on a busy machine were that: issue 28).
    let finished = false;
    session.on('error', (error: NodeJS.ErrnoException) => void (out.error ??= error.code));
    session.on('remoteSettings', (settings) => void (out.remoteSettings = settings));
    session.on('goaway', (code, lastStreamId, data) => void (out.goaway = { code, lastStreamId, data: data?.toString() ?? '' }));
    session.on('stream', (pushed, headers) => {
      const push: H2Outcome['pushes'][number] = { path: String(headers[':path']), body: Buffer.alloc(0) };
      out.pushes.push(push);
      const parts: Buffer[] = [];
      pushed.on('push', (response) => void (push.status = Number(response[':status'])));
      pushed.on('data', (chunk: Buffer) => void parts.push(chunk));
      pushed.on('end', () => void (push.body = Buffer.concat(parts)));
      pushed.on('error', () => undefined);
    });
    const req = session.request({ ':method': ask.method ?? 'GET', ':path': path, ...ask.headers }, { endStream: ask.body === undefined });
    req.on('response', (headers) => {
      out.headers = headers;
      out.status = Number(headers[':status']);
    });
    req.on('data', (chunk: Buffer) => void chunks.push(chunk));
    // Our own destroy at the deadline ends the readable too: only an 'end' before the outcome is final is the server's END_STREAM.
    req.on('end', () => void (finished || (out.ended = true)));
    req.on('error', (error: NodeJS.ErrnoException) => void (out.error ??= error.code));
    const done = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      out.body = Buffer.concat(chunks);
      out.rstCode = req.rstCode;
      session.destroy();
      resolve(out);
    };
    const timer = setTimeout(() => {
      if (!req.destroyed) {
        out.timedOut = true;
        out.ms = performance.now() - started;
      }
      done();
    }, ask.ms ?? 8000);
    req.on('close', () => {
      out.ms = performance.now() - started;
      setTimeout(done, ask.settleMs ?? 50);
    });
    if (ask.body !== undefined) req.end(ask.body);
  });
}
