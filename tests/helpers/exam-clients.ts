// Two clients that take a client exam (docs/exam.md) over node:http and raw
// sockets: a well-behaved reference client, and a bad one that has no
// backoff, ignores Retry-After, resends a POST, leaks Authorization across hosts, never gives
// up (no deadline, no redirect limit), caches everything and resumes nothing.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OpenedExam } from './exam-stack.js';

export type ClientKind = 'good' | 'bad';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** False when the body ended before its framing said. */
  readonly complete: boolean;
}

interface Send {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly agent?: http.Agent;
  /** Destroys the request after this long (the good client's deadline). */
  readonly deadlineMs?: number;
  /** Called with each body chunk as it arrives (the SSE reader). */
  readonly onData?: (chunk: Buffer) => void;
}

/** Every name on the loopback: the TLS hosts' `*.localhost` names too, as curl and browsers resolve them (the system resolver here does not). */
const loopbackLookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

/** The test root a client trusts for the TLS host (set by takeExam). */
let trustedRoot: string | undefined;

/** One request over node:http (or node:https for the TLS host); rejects on a connection error or the deadline before the response is whole. */
function send(url: string, options: Send = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] ??= 'application/x-www-form-urlencoded';
    const secure = url.startsWith('https:');
    const request = secure ? https.request : http.request;
    const tlsOptions = secure ? { lookup: loopbackLookup, ...(trustedRoot !== undefined ? { ca: trustedRoot } : {}) } : {};
    const req = request(url, { method: options.method ?? 'GET', headers, agent: options.agent ?? false, ...tlsOptions }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        options.onData?.(chunk);
      });
      res.on('error', () => undefined);
      res.on('close', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), complete: res.complete });
      });
    });
    const timer = options.deadlineMs === undefined ? undefined : setTimeout(() => req.destroy(new Error('deadline')), options.deadlineMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(options.body);
  });
}

/** Retry-After in ms: delta-seconds or an HTTP-date; undefined when absent or unreadable. */
function retryAfterMs(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The well-behaved client's longest wait for a retry: past it, it gives up. */
const MAX_WAIT_MS = 10_000;

/** A request under the retry policy of `kind`: the good client retries only idempotent ones; the bad one anything. */
async function withRetries(kind: ClientKind, url: string, first: Send = {}): Promise<void> {
  const attempts = kind === 'good' && (first.method ?? 'GET') !== 'POST' ? 3 : kind === 'good' ? 1 : 6;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const answer = await send(url, kind === 'good' ? { ...first, deadlineMs: 5000 } : first);
    if (answer.status !== 429 && answer.status !== 503) return;
    if (attempt === attempts) return;
    if (kind === 'bad') {
      await sleep(10);
      continue;
    }
    const wait = retryAfterMs(answer.headers['retry-after']) ?? 1000 * 2 ** attempt;
    if (wait > MAX_WAIT_MS) return;
    await sleep(wait + 50);
  }
}

/**
 * A cookie jar: the good client keeps each cookie for the host name that set
 * it (host-only, as none of ours has a Domain), the bad one sends every
 * cookie to every host.
 */
class Jar {
  readonly #byHost = new Map<string, Map<string, string>>();
  constructor(private readonly kind: ClientKind) {}

  keep(url: string, setCookie: readonly string[] | undefined): void {
    const host = this.kind === 'good' ? new URL(url).hostname : '*';
    for (const line of setCookie ?? []) {
      const pair = line.split(';')[0] as string;
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const kept = this.#byHost.get(host) ?? new Map<string, string>();
      kept.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      this.#byHost.set(host, kept);
    }
  }

  header(url: string): string | undefined {
    const kept = this.#byHost.get(this.kind === 'good' ? new URL(url).hostname : '*');
    return kept === undefined || kept.size === 0 ? undefined : [...kept].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** Follows redirects as `kind` does: the good client drops Authorization across origins and stops after 10 hops. */
async function follow(kind: ClientKind, url: string, first: Send): Promise<void> {
  let target = url;
  let { method = 'GET', body } = first;
  const headers: Record<string, string> = { ...first.headers };
  const jar = new Jar(kind);
  const limit = kind === 'good' ? 10 : 60;
  for (let hop = 0; hop <= limit; hop++) {
    const cookie = jar.header(target);
    const answer = await send(target, { method, headers: cookie === undefined ? headers : { ...headers, cookie }, ...(body !== undefined ? { body } : {}) });
    jar.keep(target, answer.headers['set-cookie']);
    const location = answer.headers.location;
    if (answer.status < 300 || answer.status > 399 || location === undefined) return;
    const next = new URL(location, target);
    // A change of origin (host, port or scheme: an https to http downgrade too) drops the credentials.
    if (kind === 'good' && next.origin !== new URL(target).origin) delete headers.authorization;
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    target = next.href;
  }
}

/** The bad client's cache: everything, for a minute, whatever the headers say. The good one's: validators, and never no-store. */
class Cache {
  readonly #kept = new Map<string, { etag?: string; lastModified?: string }>();
  constructor(private readonly kind: ClientKind) {}

  async get(url: string, headers: Record<string, string> = {}): Promise<void> {
    const kept = this.#kept.get(url);
    if (this.kind === 'bad') {
      if (kept !== undefined) return;
      await send(url, { headers });
      this.#kept.set(url, {});
      return;
    }
    const conditional: Record<string, string> = { ...headers };
    if (kept?.etag !== undefined) conditional['if-none-match'] = kept.etag;
    else if (kept?.lastModified !== undefined) conditional['if-modified-since'] = kept.lastModified;
    const answer = await send(url, { headers: conditional });
    if (/no-store/i.test(String(answer.headers['cache-control'] ?? ''))) return;
    const etag = answer.headers.etag;
    const lastModified = answer.headers['last-modified'];
    if (answer.status === 200 && (etag !== undefined || lastModified !== undefined)) {
      this.#kept.set(url, { ...(etag !== undefined ? { etag } : {}), ...(lastModified !== undefined ? { lastModified } : {}) });
    }
  }
}

/** Reads an event stream; the good client reconnects once after `retry:` with Last-Event-ID, the bad one at once without it. */
async function eventStream(kind: ClientKind, url: string): Promise<void> {
  let retryMs = 3000;
  let lastId: string | undefined;
  const read = async (headers: Record<string, string>): Promise<void> => {
    let buffer = '';
    let pendingId: string | undefined;
    await send(url, {
      headers: { accept: 'text/event-stream', ...headers },
      onData: (chunk) => {
        buffer += chunk.toString('utf8');
        let end: number;
        while ((end = buffer.indexOf('\n')) !== -1) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          if (line === '') {
            // Dispatch: only now does the event's id become the last event id.
            if (pendingId !== undefined) lastId = pendingId;
          } else if (line.startsWith('id:')) pendingId = line.slice(3).trim();
          else if (line.startsWith('retry:') && /^\d+$/.test(line.slice(6).trim())) retryMs = Number(line.slice(6).trim());
        }
      },
    }).catch(() => undefined);
  };
  await read({});
  if (kind === 'bad') {
    await read({});
    return;
  }
  await sleep(retryMs + 50);
  await read(lastId === undefined ? {} : { 'last-event-id': lastId });
}

/** Downloads; on a short body the good client asks for the rest with Range, the bad one starts over. */
async function download(kind: ClientKind, url: string): Promise<void> {
  const first = await send(url).catch(() => undefined);
  if (first === undefined || first.complete) return;
  await send(url, kind === 'good' ? { headers: { range: `bytes=${first.body.length}-` } } : {}).catch(() => undefined);
}

/** /keepalive-lie twice: the good client retries once on a fresh connection; the bad one writes the second request on the same socket and waits. */
async function keepAliveTwice(kind: ClientKind, url: string): Promise<void> {
  if (kind === 'good') {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await send(url, { agent });
      await send(url, { agent }).catch(() => send(url, { agent: new http.Agent() }));
    } finally {
      agent.destroy();
    }
    return;
  }
  const { hostname, port, pathname, search } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.on('error', () => undefined);
  const request = `GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`;
  socket.write(request);
  await new Promise<void>((resolve) => {
    let seen = '';
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (seen.includes('}')) resolve();
    });
    socket.once('close', () => resolve());
  });
  // The head said keep-alive: the bad client believes it, and never retries.
  if (!socket.destroyed && socket.writable) socket.write(request);
  await sleep(500);
  socket.destroy();
}

/**
 * An MCP client over Streamable HTTP (JSON answers): initialize, then pings.
 * On a 404 for its session the good client initializes again and carries
 * on; the bad one keeps pinging the dead session.
 */
async function mcpPings(kind: ClientKind, url: string): Promise<void> {
  const json = { 'content-type': 'application/json', accept: 'application/json' };
  let id = 0;
  const rpc = (session: string | undefined, method: string, params?: object, notification = false): Promise<Answer> =>
    send(url, {
      method: 'POST',
      headers: { ...json, ...(session !== undefined ? { 'mcp-session-id': session } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}), ...(notification ? {} : { id: ++id }) }),
    });
  const initialize = async (): Promise<string | undefined> => {
    const answer = await rpc(undefined, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: `exam-${kind}`, version: '1.0.0' } });
    const session = answer.headers['mcp-session-id'];
    if (typeof session !== 'string') return undefined;
    await rpc(session, 'notifications/initialized', undefined, true);
    return session;
  };
  let session = await initialize();
  let renewed = false;
  for (let ping = 0; ping < 5 && session !== undefined; ping++) {
    const answer = await rpc(session, 'ping');
    if (answer.status === 404 && kind === 'good' && !renewed) {
      renewed = true;
      session = await initialize();
    }
  }
}

/** An Anthropic Messages call: the good client retries a 529 after its retry-after, three tries in all; the bad one six, at once. */
async function llmCall(kind: ClientKind, url: string): Promise<void> {
  const body = JSON.stringify({ model: 'exam', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] });
  const attempts = kind === 'good' ? 3 : 6;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const answer = await send(url, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body });
    if (answer.status !== 529 && answer.status !== 429) return;
    if (attempt < attempts) await sleep(kind === 'good' ? (retryAfterMs(answer.headers['retry-after']) ?? 1000) + 50 : 10);
  }
}

/** Takes every step of `exam` as `kind` would, the steps at once (each one's own timeline is what is graded); `tlsRoot`: the test root to trust for the TLS host. */
export async function takeExam(kind: ClientKind, exam: OpenedExam, tlsRoot?: string): Promise<void> {
  trustedRoot = tlsRoot;
  const deadline = kind === 'good' ? { deadlineMs: 1500 } : {};
  const cache = new Cache(kind);
  await Promise.all(
    exam.steps.map(async ({ name, url }) => {
      switch (name) {
        case 'fail-first':
        case 'retry-after-seconds':
        case 'retry-after-date':
        case 'rate-limit-429':
          return withRetries(kind, url);
        case 'post-503':
          return withRetries(kind, url, { method: 'POST', body: 'a=1' });
        case 'redirect-302':
        case 'redirect-303':
        case 'redirect-307':
        case 'redirect-308':
          return follow(kind, url, { method: 'POST', body: 'a=1&b=2' });
        case 'redirect-loop':
          return follow(kind, url, {});
        case 'cross-host-authorization':
        case 'https-downgrade':
          return follow(kind, url, { headers: { authorization: 'Bearer exam-token' } });
        case 'cross-host-cookie':
          return follow(kind, url, {});
        case 'stall':
        case 'slow-headers':
        case 'drip':
          return send(url, deadline).then(() => undefined, () => undefined);
        case 'keepalive-lie':
          return keepAliveTwice(kind, url);
        case 'etag':
        case 'last-modified':
        case 'no-store':
          await cache.get(url);
          return cache.get(url);
        case 'vary':
          await cache.get(url, { 'accept-encoding': 'gzip' });
          return cache.get(url, { 'accept-encoding': 'identity' });
        case 'mcp-session-expired':
          return mcpPings(kind, url);
        case 'llm-529-retry-after':
          return llmCall(kind, url);
        case 'sse-resume':
          return eventStream(kind, url);
        case 'truncated-download':
          return download(kind, url);
        default:
          throw new Error(`no client code for step ${name}`);
      }
    }),
  );
}
