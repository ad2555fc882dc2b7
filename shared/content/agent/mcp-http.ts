// Twin content, agent family: MCP's Streamable HTTP transport, host apart.
// One exchange in, one plan out (a JSON answer, or an SSE stream to write or
// hold), which each host renders on its own wire. Sessions and the events kept
// for resumption live in the store, so any replica can answer any request of a
// session. The chaos host passes McpLies: each bends one step of the honest
// flow, and the plan says whether an answer is chaos or a real error.
import { freshSeed } from '../../primitives/seed.js';
import { STREAM_NAME_RE, type Store } from '../../store/types.js';
import { MCP_PROTOCOL_VERSIONS } from '../discovery.js';
import { RPC_INVALID_REQUEST, RPC_PARSE_ERROR, type RpcId } from './json-rpc.js';
import { answerMethod, errorOut, type McpAnswer, type McpOut } from './mcp-methods.js';

export const MCP_SESSION_HEADER = 'Mcp-Session-Id';
export const MCP_VERSION_HEADER = 'MCP-Protocol-Version';
/** A session ends this long after its last request (sliding). */
export const MCP_SESSION_TTL_MS = 10 * 60_000;
/** Live sessions one client address may hold; past it initialize is refused (429). */
export const MCP_SESSIONS_PER_ADDRESS = 16;
/** Events kept per session for resumption, every stream together; the oldest go first. */
export const MCP_EVENTS_PER_SESSION = 64;
/** Largest request body; past it 413. */
export const MCP_MAX_BODY = 64 * 1024;
/** The reconnection delay an SSE stream advertises (`retry:`). */
export const MCP_RETRY_MS = 1000;
/** The version assumed when a request names none (the transport's rule since 2025-06-18). */
const ASSUMED_VERSION = '2025-03-26';
const LATEST = MCP_PROTOCOL_VERSIONS[MCP_PROTOCOL_VERSIONS.length - 1] as string;
const SUPPORTED: ReadonlySet<string> = new Set(MCP_PROTOCOL_VERSIONS);
/** The stream a GET opens; a POST's stream is `p` and 16 hex digits. */
export const GET_STREAM = 'get';
/** The transport errors' codes, as the official SDK's server writes them. */
const BAD_REQUEST = -32000;
const SESSION_NOT_FOUND = -32001;

export interface McpHttpRequest {
  /** GET, POST or DELETE (the router answers the rest with 405). */
  readonly method: string;
  header(name: string): string | undefined;
  /** The POST body; undefined when it exceeded MCP_MAX_BODY. */
  readonly body: Buffer | undefined;
  readonly clientAddress: string;
  /** serverInfo.name in initialize (the control host's is the server card's name). */
  readonly serverName: string;
}

export interface SseOut {
  readonly id?: string;
  readonly data: string;
  readonly retryMs?: number;
  /** Pause before this event (countdown's steps). */
  readonly pauseMs?: number;
}

export type McpPlan =
  | {
      readonly kind: 'json';
      readonly status: number;
      readonly body: McpOut | undefined;
      readonly sessionId?: string | undefined;
      /** A real error (no X-Chaos-* line on the chaos host). */
      readonly real: boolean;
    }
  | {
      readonly kind: 'sse';
      readonly sessionId?: string | undefined;
      readonly events: readonly SseOut[];
      /** Held open after the events (a GET stream): `poll` names where later events come from, on the chaos host. */
      readonly hold: boolean;
      readonly poll?: { readonly session: string; readonly stream: string; readonly after: number } | undefined;
      /** Chaos: how the stream breaks (the renderer's business). */
      readonly cut?: 'mid-event' | 'after-first' | undefined;
    };

/** How the chaos host bends the flow; the control host passes none. */
export interface McpLies {
  /** False: initialize answers without Mcp-Session-Id (session-not-issued). */
  readonly issueSession?: boolean;
  /** Whether a request's MCP-Protocol-Version is accepted, given the negotiated one (protocol-version-header-lie). */
  readonly versionAccepted?: (header: string, negotiated: string) => boolean;
  /** An answer instead of the honest one, for a request on a live session (session-expired). */
  readonly screen?: (sessionId: string) => Promise<McpPlan | undefined>;
  /** A new session on every answer, the old one closed (session-changes). */
  readonly rotate?: boolean;
  /** The answer to a request, rewritten (flood, cursor loop, mismatch, unknown token, elicitation). */
  readonly rewrite?: (answer: McpAnswer, method: string) => McpAnswer;
  /** Requests after initialize are streamed whatever Accept prefers (the lies that need a stream). */
  readonly alwaysStream?: boolean;
  /** How a request's SSE stream lies; set, requests after initialize are always streamed. */
  readonly stream?: 'cut-mid-event' | 'cut-after-first' | 'ids-backwards' | 'on-get-stream';
  /** A resumption replays the stream from its start, whatever Last-Event-ID said (sse-no-resume). */
  readonly replayFromStart?: boolean;
}

interface Session {
  readonly v: string;
}

type Message =
  | { readonly kind: 'request'; readonly id: RpcId; readonly method: string; readonly params: unknown }
  | { readonly kind: 'notification' | 'response' };

function real(status: number, code: number, message: string, id: RpcId = null): McpPlan {
  return { kind: 'json', status, body: errorOut(id, { code, message }), real: true };
}

/** One JSON-RPC message: a request, a notification or a response (the client's answer to a server request). */
function parseMessage(body: Buffer): Message | McpPlan {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return real(400, RPC_PARSE_ERROR, 'Parse error: the body is not JSON');
  }
  if (Array.isArray(value)) return real(400, RPC_INVALID_REQUEST, 'Invalid Request: batches are not accepted (removed in 2025-06-18)');
  if (typeof value !== 'object' || value === null) return real(400, RPC_INVALID_REQUEST, 'Invalid Request: one JSON-RPC 2.0 object expected');
  const m = value as Record<string, unknown>;
  const idOk = m.id === undefined || typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id));
  if (m.jsonrpc !== '2.0' || !idOk) return real(400, RPC_INVALID_REQUEST, 'Invalid Request: jsonrpc "2.0" and a string or number id are required');
  if (typeof m.method === 'string') {
    if (m.id === undefined) return { kind: 'notification' };
    return { kind: 'request', id: m.id as RpcId, method: m.method, params: m.params };
  }
  if (m.id !== undefined && ('result' in m || 'error' in m)) return { kind: 'response' };
  return real(400, RPC_INVALID_REQUEST, 'Invalid Request: neither a request, a notification nor a response');
}

/** Which answer form the client's Accept allows: SSE unless it ranks JSON higher or omits event streams. */
function delivery(accept: string | undefined): 'json' | 'sse' | undefined {
  const q = (type: string): number => {
    let best = -1;
    for (const part of (accept ?? '').toLowerCase().split(',')) {
      const [range, ...rest] = part.trim().split(';');
      if (range !== type && range !== '*/*' && range !== `${type.split('/')[0]}/*`) continue;
      const qv = rest.map((r) => r.trim()).find((r) => r.startsWith('q='));
      best = Math.max(best, qv ? Number(qv.slice(2)) || 0 : 1);
    }
    return best;
  };
  const json = q('application/json');
  const sse = q('text/event-stream');
  if (json <= 0 && sse <= 0) return undefined;
  return sse > 0 && sse >= json ? 'sse' : 'json';
}

/** Serves one exchange of the transport. Never throws for client input; a store failure rejects. */
export async function mcpExchange(req: McpHttpRequest, store: Store, lies: McpLies = {}): Promise<McpPlan> {
  if (req.method === 'POST') return post(req, store, lies);
  const checked = await sessionOf(req, store, lies);
  if ('kind' in checked) return checked;
  if (req.method === 'DELETE') {
    await store.closeSession(checked.id);
    return { kind: 'json', status: 200, body: undefined, real: false };
  }
  if (delivery(req.header('accept')) !== 'sse') return real(406, BAD_REQUEST, 'Not Acceptable: a GET must accept text/event-stream');
  return resume(req.header('last-event-id'), checked.id, store, lies);
}

/** The live session a request names, or the transport's error. */
async function sessionOf(req: McpHttpRequest, store: Store, lies: McpLies): Promise<{ id: string; session: Session } | McpPlan> {
  const id = req.header(MCP_SESSION_HEADER.toLowerCase());
  if (id === undefined || id === '') return real(400, BAD_REQUEST, 'Bad Request: Mcp-Session-Id header is required');
  const value = await store.touchSession(id, MCP_SESSION_TTL_MS);
  if (value === undefined) return real(404, SESSION_NOT_FOUND, 'Session not found');
  const session = JSON.parse(value) as Session;
  const version = req.header(MCP_VERSION_HEADER.toLowerCase());
  const accepted = version === undefined ? true : lies.versionAccepted ? lies.versionAccepted(version, session.v) : SUPPORTED.has(version);
  if (!accepted) {
    const message = `Bad Request: Unsupported protocol version: ${String(version).slice(0, 40)} (supported: ${MCP_PROTOCOL_VERSIONS.join(', ')})`;
    // Under protocol-version-header-lie the refusal is the lie: chaos, not a real error.
    return { kind: 'json', status: 400, body: errorOut(null, { code: BAD_REQUEST, message }), real: lies.versionAccepted === undefined };
  }
  const screened = await lies.screen?.(id);
  return screened ?? { id, session };
}

async function post(req: McpHttpRequest, store: Store, lies: McpLies): Promise<McpPlan> {
  if (req.body === undefined) return real(413, RPC_INVALID_REQUEST, `Invalid Request: body larger than ${MCP_MAX_BODY / 1024} KiB`);
  const form = delivery(req.header('accept'));
  if (form === undefined) return real(406, BAD_REQUEST, 'Not Acceptable: accept application/json or text/event-stream');
  const type = (req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') return real(415, BAD_REQUEST, 'Unsupported Media Type: Content-Type must be application/json');
  const message = parseMessage(req.body);
  if ('kind' in message && (message.kind === 'json' || message.kind === 'sse')) return message;
  const parsed = message as Message;
  if (parsed.kind === 'request' && parsed.method === 'initialize') return initialize(req, store, lies, parsed, form);
  const checked = await sessionOf(req, store, lies);
  if ('kind' in checked) return checked;
  let sessionId: string | undefined;
  if (lies.rotate) {
    sessionId = await store.openSession(req.clientAddress, JSON.stringify(checked.session), MCP_SESSIONS_PER_ADDRESS, MCP_SESSION_TTL_MS);
    await store.closeSession(checked.id);
  }
  if (parsed.kind !== 'request') return { kind: 'json', status: 202, body: undefined, sessionId, real: false };
  const honest = answerMethod(parsed.id, parsed.method, parsed.params);
  const answer = lies.rewrite ? lies.rewrite(honest, parsed.method) : honest;
  // The stream stays in the rotated-from session's log only when there is none newer.
  const logIn = sessionId ?? checked.id;
  if (lies.stream === 'on-get-stream') {
    await store.appendEvents(logIn, GET_STREAM, [...answer.notes, answer.response].map((m) => JSON.stringify(m)), MCP_EVENTS_PER_SESSION);
    return { kind: 'json', status: 202, body: undefined, sessionId, real: false };
  }
  if (form === 'json' && lies.stream === undefined && lies.alwaysStream !== true) return { kind: 'json', status: 200, body: answer.response, sessionId, real: false };
  return { ...(await streamed(store, logIn, checked.session.v, answer, lies)), sessionId };
}

async function initialize(req: McpHttpRequest, store: Store, lies: McpLies, message: { id: RpcId; params: unknown }, form: 'json' | 'sse'): Promise<McpPlan> {
  const params = (typeof message.params === 'object' && message.params !== null ? message.params : {}) as { protocolVersion?: unknown };
  const requested = params.protocolVersion;
  // Negotiation: the version asked for when spoken here, else the latest.
  const version = typeof requested === 'string' && SUPPORTED.has(requested) ? requested : LATEST;
  const session: Session = { v: version };
  const id = await store.openSession(req.clientAddress, JSON.stringify(session), MCP_SESSIONS_PER_ADDRESS, MCP_SESSION_TTL_MS);
  if (id === undefined) {
    return real(429, BAD_REQUEST, `Too many sessions: this address holds ${MCP_SESSIONS_PER_ADDRESS} live ones; DELETE one or let one expire (10 minutes unused)`, message.id);
  }
  const response = {
    jsonrpc: '2.0',
    id: message.id,
    result: {
      protocolVersion: version,
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false }, prompts: { listChanged: false } },
      serverInfo: { name: req.serverName, title: 'Chaos MCP server', version: '2.0.0' },
      instructions: 'Tools echo, add and countdown; five notes as resources; three prompts. Lists are paged two at a time.',
    },
  };
  const sessionId = lies.issueSession === false ? undefined : id;
  if (form === 'json') return { kind: 'json', status: 200, body: response, sessionId, real: false };
  const first = await store.appendEvents(id, 'init', [JSON.stringify(response)], MCP_EVENTS_PER_SESSION);
  return { kind: 'sse', sessionId, events: [{ id: `init.${first}`, data: JSON.stringify(response) }], hold: false };
}

/** A request's answer as an SSE stream, kept in the store first so a client that loses it can resume. */
async function streamed(store: Store, session: string, version: string, answer: McpAnswer, lies: McpLies): Promise<McpPlan> {
  const stream = `p${freshSeed()}`;
  const messages = [...answer.notes, answer.response].map((m) => JSON.stringify(m));
  const first = await store.appendEvents(session, stream, messages, MCP_EVENTS_PER_SESSION);
  const last = first + messages.length - 1;
  const events: SseOut[] = [];
  // sse-cut sends no ids: a client has nothing to resume from.
  const ids = lies.stream !== 'cut-mid-event';
  // The priming event (2025-11-25): an id and no data, so a stream cut before its first message can be resumed.
  if (ids && version >= '2025-11-25') events.push({ id: `${stream}.0`, data: '', retryMs: MCP_RETRY_MS });
  messages.forEach((data, i) => {
    const seq = lies.stream === 'ids-backwards' ? last - i : first + i;
    events.push({ ...(ids ? { id: `${stream}.${seq}` } : {}), data, ...(i > 0 && i <= answer.notes.length ? { pauseMs: answer.stepMs } : {}) });
  });
  const cut = lies.stream === 'cut-mid-event' ? 'mid-event' : lies.stream === 'cut-after-first' ? 'after-first' : undefined;
  return { kind: 'sse', events, hold: false, cut };
}

/** A GET: the session's own stream, or the resumption of the stream Last-Event-ID names (events after it). */
async function resume(lastEventId: string | undefined, session: string, store: Store, lies: McpLies): Promise<McpPlan> {
  const named = lastEventId === undefined ? undefined : /^([A-Za-z0-9_-]{1,64})\.(\d{1,15})$/.exec(lastEventId.trim());
  const stream = named?.[1] ?? GET_STREAM;
  if (!STREAM_NAME_RE.test(stream)) return real(400, BAD_REQUEST, 'Bad Request: Last-Event-ID names no stream of this server');
  const after = lies.replayFromStart || !named ? 0 : Number(named[2]);
  const kept = named ? await store.eventsAfter(session, stream, after) : [];
  const events: SseOut[] = kept.map((e) => ({ id: `${stream}.${e.seq}`, data: e.data }));
  if (stream !== GET_STREAM) return { kind: 'sse', events, hold: false };
  const lastSeq = kept.length > 0 ? (kept[kept.length - 1] as { seq: number }).seq : after;
  // A fresh GET stream primes with an id too, so a reconnection names where it stood.
  if (events.length === 0) events.push({ id: `${GET_STREAM}.${lastSeq}`, data: '', retryMs: MCP_RETRY_MS });
  return { kind: 'sse', events, hold: true, poll: { session, stream: GET_STREAM, after: lastSeq } };
}

/** One event as text/event-stream lines (JSON text has no raw line breaks). */
export function sseText(event: SseOut): string {
  let text = '';
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.retryMs !== undefined) text += `retry: ${event.retryMs}\n`;
  return `${text}data: ${event.data}\n\n`;
}

/** A comment line that keeps a held stream alive through proxies. */
export const SSE_KEEPALIVE = ': keep-alive\n\n';
/** Between keep-alive comments on a held GET stream. */
export const MCP_KEEPALIVE_MS = 15_000;
