// The client exam's recorder (docs/exam.md): the pipeline hands it only the
// requests whose query holds `exam=` (ExamTap); each valid one becomes one
// entry of its exam's log when its exchange ends: one store call per exam
// request, none for any other. What is kept is what grading needs: times,
// method, status, whether the response finished (the client's give-up), a
// connection id, and a few request header facts. Authorization is kept as
// present or absent, never its value, and so are the cross-host cookie and
// an MCP session id; no body, only its length.
import type { HostName } from '../config/config.js';
import type { Logger } from '../config/log.js';
import type { Exchange, ExchangeNote } from '../pipeline/observe.js';
import type { ExamTap, IncomingRequest } from '../pipeline/transport.js';
import { carriesHopCookie, examValueOf } from '../primitives/exam-param.js';
import { freshSeed } from '../primitives/seed.js';
import { idKey, type Store } from '../store/types.js';

/** Most entries one exam keeps: a client in a redirect loop or a retry storm cannot grow it further. */
export const MAX_ENTRIES_PER_EXAM = 300;
/** A header value kept for grading is cut to this many characters. */
const MAX_VALUE = 128;

/** One observed request of an exam step, as stored (JSON). */
export interface StepEntry {
  readonly step: string;
  readonly host: HostName;
  /** The endpoint id that answered; absent when none matched. */
  readonly endpoint?: string;
  readonly method: string;
  /** When the request was dispatched (ms since the epoch, this replica's clock). */
  readonly at: number;
  /** Until the last byte, or until the client closed first (ms). */
  readonly ms: number;
  readonly status: number;
  /** False when the client went away before the response ended: it gave up. */
  readonly finished: boolean;
  /** The connection, unique across replicas: reuse shows as the same id. */
  readonly conn: string;
  readonly authorization: boolean;
  /** The request came over TLS (the https-downgrade step's first hop). */
  readonly tls?: true;
  /** The request carried the cross-host cookie (HOP_COOKIE): present, never its value. */
  readonly cookie?: true;
  /** The request carried an Mcp-Session-Id (present, never its value): an MCP `initialize` carries none. */
  readonly session?: true;
  readonly bodyBytes?: number;
  readonly lastEventId?: string;
  readonly ifNoneMatch?: string;
  readonly ifModifiedSince?: string;
  readonly range?: string;
  readonly ifRange?: string;
  readonly acceptEncoding?: string;
}

/** The store key of an exam's log: the id's digest, so the id itself is never stored. */
export function examKey(id: string): string {
  return idKey('exam', id);
}

type Facts = { -readonly [K in keyof StepEntry]?: StepEntry[K] };

const HEADER_FACTS = [
  ['last-event-id', 'lastEventId'],
  ['if-none-match', 'ifNoneMatch'],
  ['if-modified-since', 'ifModifiedSince'],
  ['range', 'range'],
  ['if-range', 'ifRange'],
  ['accept-encoding', 'acceptEncoding'],
] as const;

export class ExamRecorder implements ExamTap {
  /** Connection ids, given on a connection's first exam request only. */
  readonly #connections = new WeakMap<object, string>();
  readonly #process = freshSeed().slice(0, 6);
  #nextConnection = 0;

  constructor(
    private readonly store: Store,
    private readonly host: HostName,
    private readonly logger: Logger,
  ) {}

  open(req: IncomingRequest, _clientAddress: string, connection: object | undefined): ExchangeNote | undefined {
    const value = examValueOf(req.query);
    if (value === undefined) return undefined;
    const dot = value.indexOf('.');
    const id = value.slice(0, dot);
    const facts: Facts = {
      step: value.slice(dot + 1),
      host: this.host,
      method: req.method,
      at: Date.now(),
      conn: this.#connectionId(connection),
      authorization: req.headers.get('authorization') !== undefined,
    };
    if (req.bodyBytes !== undefined) facts.bodyBytes = req.bodyBytes;
    if (req.transport.tls) facts.tls = true;
    if (carriesHopCookie(req.headers.get('cookie'))) facts.cookie = true;
    if (req.headers.get('mcp-session-id') !== undefined) facts.session = true;
    for (const [name, field] of HEADER_FACTS) {
      const raw = req.headers.get(name);
      if (raw !== undefined) facts[field] = raw.slice(0, MAX_VALUE);
    }
    return { finished: (exchange) => this.#append(id, facts, exchange) };
  }

  #append(id: string, facts: Facts, exchange: Exchange): void {
    facts.ms = Math.round(exchange.durationMs);
    facts.status = exchange.status;
    facts.finished = exchange.completed;
    if (exchange.endpoint !== undefined) facts.endpoint = exchange.endpoint;
    this.store.appendLog(examKey(id), JSON.stringify(facts), MAX_ENTRIES_PER_EXAM).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'exam step not recorded');
    });
  }

  #connectionId(connection: object | undefined): string {
    if (connection === undefined) return `${this.#process}-?`;
    let id = this.#connections.get(connection);
    if (id === undefined) this.#connections.set(connection, (id = `${this.#process}-${++this.#nextConnection}`));
    return id;
  }
}
