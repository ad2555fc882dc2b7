// The one observation point (DESIGN §3): every finished response, on every
// host, is published here once. Metrics and tests subscribe; when nobody does,
// the pipeline allocates nothing for it (undici's diagnostics-channel idea).
import diagnosticsChannel from 'node:diagnostics_channel';
import type { HostName } from '../config/config.js';

/** What the pipeline decided for the request. */
export type Outcome =
  | 'served' // the endpoint's handler answered (chaos or twin)
  | 'catalog' // no endpoint at this path: the catalog, 200 at / and 404 elsewhere
  | 'page' // a page of the hub beside its catalog (/compare)
  | 'rejected' // the request itself was malformed (parser or node:http), answered and closed
  | 'misdirected' // 421: the connection's host is another of ours
  | 'method-not-allowed' // the router's 405
  | 'invalid-params' // the router's 400
  | 'refused' // the endpoint's own check answered before serving (e.g. /infinite's 404/414)
  | 'rate-limited' // a real 429 from a per-IP policy
  | 'failed'; // the handler threw: 500, or a reset once its head was out

export interface Observation {
  readonly host: HostName;
  /** Endpoint id, or undefined when no endpoint was matched. */
  readonly endpoint: string | undefined;
  readonly category: string | undefined;
  /** Value of the endpoint's mode parameter, when it has one. */
  readonly mode: string | undefined;
  /** Status of the final head written; 0 when no head went out (a reset before it, a client gone first). */
  readonly status: number;
  /** Bytes handed to the socket for this response, head included. */
  readonly bytes: number;
  /** From the complete request to the last byte written, or to the client's close. */
  readonly durationMs: number;
  readonly outcome: Outcome;
  /** False when the client went away before the response ended. */
  readonly completed: boolean;
  /** The refusing policy of a 429. */
  readonly policy?: string | undefined;
}

const channel = diagnosticsChannel.channel('chaos-endpoint-service:response');

/** Whether anybody listens: the pipeline checks this before it measures anything. */
export function observing(): boolean {
  return channel.hasSubscribers;
}

/** Subscribes `listener` to every finished response; returns the unsubscribe function. */
export function observe(listener: (observation: Observation) => void): () => void {
  const onMessage = (message: unknown): void => listener(message as Observation);
  channel.subscribe(onMessage);
  return () => {
    channel.unsubscribe(onMessage);
  };
}

/** Who else wants an exchange when it ends: a client exam's recorder (shared/exam/), for requests carrying an exam id. */
export interface ExchangeNote {
  finished(exchange: Exchange): void;
}

/**
 * What is known of one exchange while it runs; created only while observing
 * or for a request carrying an exam id.
 * The pipeline fills in the decision, the transport the status and bytes.
 */
export class Exchange implements Observation {
  readonly startedAt = performance.now();
  endpoint: string | undefined;
  category: string | undefined;
  mode: string | undefined;
  outcome: Outcome = 'served';
  policy: string | undefined;
  status = 0;
  bytes = 0;
  durationMs = 0;
  completed = false;
  #published = false;

  constructor(
    readonly host: HostName,
    readonly note?: ExchangeNote,
  ) {}

  /** Publishes itself once, as the observation (no second object per response); later calls (a close after the end) are ignored. */
  finish(status: number, bytes: number, completed: boolean): void {
    if (this.#published) return;
    this.#published = true;
    this.status = status;
    this.bytes = bytes;
    this.completed = completed;
    this.durationMs = performance.now() - this.startedAt;
    this.note?.finished(this);
    channel.publish(this);
  }
}

const aiChannel = diagnosticsChannel.channel('chaos-endpoint-service:ai');

/** Where an AI-mode body came from: the model, or the fallback and why (`none` when the model wrote it). */
export function publishAi(source: 'ai' | 'fallback', reason: string): void {
  if (aiChannel.hasSubscribers) aiChannel.publish({ source, reason });
}

/** Subscribes to AI-mode outcomes; returns the unsubscribe function. */
export function observeAi(listener: (source: string, reason: string) => void): () => void {
  const onMessage = (message: unknown): void => {
    const { source, reason } = message as { source: string; reason: string };
    listener(source, reason);
  };
  aiChannel.subscribe(onMessage);
  return () => {
    aiChannel.unsubscribe(onMessage);
  };
}
