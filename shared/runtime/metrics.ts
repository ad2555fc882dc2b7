// Prometheus metrics of one process (DESIGN §10): one prom-client registry,
// fed by the observation channel (observe.ts), served on the admin port.
// Labels come from the registry only (route template, declared modes, status
// code), never an address, a seed, an id or a raw path, so their number is
// bounded by the registry. A response's series are cells (metric-cells.ts)
// found in nested maps and created once: counting a response allocates and
// hashes nothing after warm-up.
import client from 'prom-client';
import { CellCounter, CellHistogram, type CounterCell, type HistogramCell } from './metric-cells.js';
import type { HostName } from '../config/config.js';
import { observe, observeAi, type Observation, type Outcome } from '../pipeline/observe.js';

/** Every metric name this service exposes (dashboards and deployment files are checked against it). */
export const METRIC_NAMES = [
  'chaos_responses_total',
  'chaos_response_duration_seconds',
  'chaos_response_bytes_total',
  'chaos_connections_open',
  'chaos_held_responses',
  'chaos_rate_limited_total',
  'chaos_store_fallback_total',
  'chaos_ai_requests_total',
  'chaos_request_errors_total',
] as const;

/** Seconds: from 1 ms to the longest response a holding endpoint may take (MAX_RESPONSE_MS, 120 s by default). */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** What a real failure counts as in chaos_request_errors_total{reason}. */
const ERROR_REASONS: Partial<Record<Outcome, string>> = {
  rejected: 'malformed_request',
  'invalid-params': 'invalid_params',
  'method-not-allowed': 'method_not_allowed',
  misdirected: 'misdirected',
  failed: 'internal_error',
};

const NO_ENDPOINT = 'none';

export interface MetricsSources {
  /** Open connections of the process's public server, read at scrape time. */
  readonly connections: () => number;
  /** Responses of holding endpoints in progress, read at scrape time. */
  readonly heldResponses: () => number;
  /** TLS mode → seconds until its certificate expires, read at scrape time (absent or empty: no TLS). */
  readonly tlsCertExpiry?: () => ReadonlyMap<string, number>;
}

interface EndpointChildren {
  /** By status class: 1xx … 5xx, then none. */
  readonly duration: readonly HistogramCell[];
  readonly bytes: CounterCell;
  /** mode → code → cell */
  readonly responses: Map<string, Map<number, CounterCell>>;
}

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'none'] as const;

export class Metrics {
  readonly registry = new client.Registry();
  readonly #responses: CellCounter;
  readonly #duration: CellHistogram;
  readonly #bytes: CellCounter;
  readonly #rateLimited: client.Counter<string>;
  readonly #errors: client.Counter<string>;
  readonly #fallbacks: client.Counter<string>;
  readonly #ai: client.Counter<string>;
  readonly #byEndpoint = new Map<string, EndpointChildren>();
  readonly #pathsOf: () => ReadonlyMap<string, string>;
  #paths: ReadonlyMap<string, string> | undefined;
  readonly #unsubscribe: (() => void)[] = [];

  constructor(
    readonly host: HostName,
    /** Endpoint id → route template, from the registry (read at the first response: the service is built after the metrics). */
    paths: () => ReadonlyMap<string, string>,
    sources: MetricsSources,
  ) {
    this.#pathsOf = paths;
    const registers = [this.registry];
    client.collectDefaultMetrics({ register: this.registry });
    this.#responses = new CellCounter({
      name: 'chaos_responses_total',
      help: 'Responses finished, by host, category, endpoint (route template), mode and status code (0: no status line was sent)',
      labelNames: ['host', 'category', 'endpoint', 'mode', 'code'],
      registers,
    });
    this.#duration = new CellHistogram({
      name: 'chaos_response_duration_seconds',
      help: 'From the complete request to the last byte written or the close',
      labelNames: ['host', 'category', 'endpoint', 'status_class'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.#bytes = new CellCounter({
      name: 'chaos_response_bytes_total',
      help: 'Bytes handed to the socket for responses, heads included',
      labelNames: ['host', 'category', 'endpoint'],
      registers,
    });
    new client.Gauge({
      name: 'chaos_connections_open',
      help: 'Open client connections of this process',
      labelNames: ['host'],
      registers,
      collect() {
        this.set({ host }, sources.connections());
      },
    });
    new client.Gauge({
      name: 'chaos_held_responses',
      help: 'Responses of endpoints that hold the connection, in progress',
      labelNames: ['host'],
      registers,
      collect() {
        this.set({ host }, sources.heldResponses());
      },
    });
    if (sources.tlsCertExpiry) {
      const expiry = sources.tlsCertExpiry;
      new client.Gauge({
        name: 'chaos_tls_cert_expiry_seconds',
        help: 'Seconds until the TLS mode\'s certificate expires (negative: expired); re-minted daily, so good stays positive and expired negative',
        labelNames: ['mode'],
        registers,
        collect() {
          this.reset();
          for (const [mode, seconds] of expiry()) this.set({ mode }, seconds);
        },
      });
    }
    this.#rateLimited = new client.Counter({
      name: 'chaos_rate_limited_total',
      help: 'Real 429s of the per-IP policies, by policy',
      labelNames: ['host', 'policy'],
      registers,
    });
    this.#errors = new client.Counter({
      name: 'chaos_request_errors_total',
      help: 'Real failures: malformed requests, parameter errors, wrong methods, misdirected requests, internal errors',
      labelNames: ['host', 'reason'],
      registers,
    });
    this.#fallbacks = new client.Counter({
      name: 'chaos_store_fallback_total',
      help: 'Times the shared store (Redis) could not answer and local memory served instead, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.#ai = new client.Counter({
      name: 'chaos_ai_requests_total',
      help: 'AI-mode requests by source of the body (ai, fallback) and fallback reason (none when the model wrote it)',
      labelNames: ['source', 'reason'],
      registers,
    });
    // Known series exist from the start at 0, so rate() and absent() work before the first event.
    for (const reason of ['unavailable', 'timeout', 'error']) this.#fallbacks.labels(reason).inc(0);
    for (const reason of new Set(Object.values(ERROR_REASONS))) this.#errors.labels(host, reason).inc(0);
    this.#unsubscribe.push(
      observe((o) => this.#count(o)),
      observeAi((source, reason) => this.#ai.labels(source, reason).inc()),
    );
  }

  /** The store's fallback hook (createStore's onFallback). */
  readonly storeFallback = (reason: string): void => {
    this.#fallbacks.labels(reason).inc();
  };

  #path(id: string): string {
    this.#paths ??= this.#pathsOf();
    return this.#paths.get(id) ?? id;
  }

  #children(o: Observation): EndpointChildren {
    const id = o.endpoint ?? NO_ENDPOINT;
    let children = this.#byEndpoint.get(id);
    if (children === undefined) {
      const endpoint = o.endpoint === undefined ? NO_ENDPOINT : this.#path(o.endpoint);
      const category = o.category ?? NO_ENDPOINT;
      children = {
        duration: STATUS_CLASSES.map((c) => this.#duration.cell(this.host, category, endpoint, c)),
        bytes: this.#bytes.cell(this.host, category, endpoint),
        responses: new Map(),
      };
      this.#byEndpoint.set(id, children);
    }
    return children;
  }

  #count(o: Observation): void {
    if (o.host !== this.host) return;
    const children = this.#children(o);
    const mode = o.mode ?? '';
    let byCode = children.responses.get(mode);
    if (byCode === undefined) children.responses.set(mode, (byCode = new Map()));
    let counter = byCode.get(o.status);
    if (counter === undefined) {
      const endpoint = o.endpoint === undefined ? NO_ENDPOINT : this.#path(o.endpoint);
      byCode.set(o.status, (counter = this.#responses.cell(this.host, o.category ?? NO_ENDPOINT, endpoint, mode, String(o.status))));
    }
    counter.value++;
    // 1xx … 5xx are cells 0 … 4; anything else (0: no status line) is `none`.
    const statusClass = o.status >= 100 && o.status < 600 ? Math.floor(o.status / 100) - 1 : STATUS_CLASSES.length - 1;
    (children.duration[statusClass] as HistogramCell).observe(o.durationMs / 1000);
    children.bytes.value += o.bytes;
    if (o.outcome === 'rate-limited') this.#rateLimited.labels(this.host, o.policy ?? 'general').inc();
    const reason = ERROR_REASONS[o.outcome];
    if (reason !== undefined) this.#errors.labels(this.host, reason).inc();
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }
}
