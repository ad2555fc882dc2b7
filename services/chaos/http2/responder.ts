// An HTTP/2 stream as the pipeline's responder (the transport seam): the
// request built from the client's fields, our honest answers as HEADERS and
// DATA, and for a chaos endpoint a ResponseSink over the stream, so its
// HTTP-level lie (status, headers, body, delays) reaches an HTTP/2 client.
// What only HTTP/1.1 bytes can say (a raw head, bytes outside the framing)
// has no HTTP/2 form: such an endpoint does not declare `h2` in its
// transports, and the pipeline refuses it (shared/registry/transports.ts).
import type { Config } from '../../../shared/config/config.js';
import type { Recordings } from '../../../shared/pipeline/decision-memo.js';
import type { Exchange } from '../../../shared/pipeline/observe.js';
import type { Responder, TransportFacts } from '../../../shared/pipeline/transport.js';
import { errorResponse, INTERNAL_ERROR_REASON, type PlainResponse } from '../../../shared/registry/errors.js';
import { httpDate, type HeaderList } from '../../../shared/primitives/headers.js';
import type { Registry } from '../../../shared/registry/registry.js';
import type { Store } from '../../../shared/store/types.js';
import type { ChaosContext, ChaosEndpoint } from '../endpoint.js';
import type { ParsedRequest } from '../parser.js';
import type { EndAction, ResponseSink } from '../wire.js';
import { ERROR } from './frames.js';
import type { HeaderField } from './hpack.js';
import type { H2Stream } from './session.js';

/** Fields that are HTTP/1.1's connection management: never in HTTP/2 (RFC 9113 §8.2.2). */
const CONNECTION_FIELDS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/** Header lines as HTTP/2 fields: names lowercased (the one header helper's X-Chaos-* become x-chaos-*), connection fields dropped. */
export function h2Fields(headers: HeaderList): HeaderField[] {
  const fields: HeaderField[] = [];
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (!CONNECTION_FIELDS.has(lower)) fields.push([lower, value]);
  }
  return fields;
}

/** The request a stream's fields make, or the reason they make none (a stream error, PROTOCOL_ERROR; RFC 9113 §8.3.1). */
export function h2Request(fields: readonly HeaderField[], transport: TransportFacts): ParsedRequest | string {
  const pseudo = new Map<string, string>();
  const headers = new Map<string, string>();
  for (const [name, value] of fields) {
    if (name.startsWith(':')) {
      if (headers.size > 0) return 'pseudo-header after a regular field';
      if (pseudo.has(name) || ![':method', ':path', ':scheme', ':authority'].includes(name)) return `pseudo-header ${name} repeated or unknown`;
      pseudo.set(name, value);
      continue;
    }
    if (name !== name.toLowerCase()) return `uppercase field name ${name}`;
    if (CONNECTION_FIELDS.has(name) || (name === 'te' && value !== 'trailers')) return `connection-specific field ${name}`;
    const previous = headers.get(name);
    headers.set(name, previous === undefined ? value : `${previous}${name === 'cookie' ? '; ' : ', '}${value}`);
  }
  const method = pseudo.get(':method');
  const target = pseudo.get(':path');
  if (method === undefined || target === undefined || pseudo.get(':scheme') === undefined || target === '') return 'missing :method, :scheme or :path';
  const q = target.indexOf('?');
  return {
    method,
    target,
    path: q < 0 ? target : target.slice(0, q),
    query: q < 0 ? '' : target.slice(q + 1),
    version: '2',
    headers,
    host: pseudo.get(':authority') ?? headers.get('host'),
    keepAlive: true,
    bodyBytes: 0,
    transport,
  };
}

/** What a stream's responder needs of the server. */
export interface H2ResponderHost {
  readonly config: Config;
  readonly store: Store;
  readonly registry: Registry<ChaosContext>;
  readonly holdMs: number;
}

/** The pipeline's answers for one HTTP/2 request, on its stream. */
export class H2Responder implements Responder<ChaosContext> {
  exchange: Exchange | undefined;

  constructor(
    private readonly host: H2ResponderHost,
    private readonly stream: H2Stream,
    private readonly req: ParsedRequest,
    private readonly clientAddress: string,
  ) {
    stream.whenDone(() => this.exchange?.finish(stream.status ?? 0, stream.bytesWritten, !stream.closed));
  }

  plain(response: PlainResponse): void {
    writePlain(this.stream, response, this.req.method === 'HEAD');
  }

  context(endpoint: ChaosEndpoint, clamped: readonly string[], _recordings: Recordings | undefined): ChaosContext {
    const { host, stream, req } = this;
    return {
      req, endpoint, clamped, keepAlive: true, config: host.config, store: host.store, registry: host.registry, clientAddress: this.clientAddress,
      wire: new H2Sink(stream, req.method === 'HEAD', host.holdMs),
      h2: stream,
    };
  }

  failed(): void {
    if (this.stream.ended || this.stream.closed) return;
    if (this.stream.headersSent) this.stream.rst(ERROR.INTERNAL_ERROR);
    else writePlain(this.stream, errorResponse(500, INTERNAL_ERROR_REASON), false);
  }

  whenDone(fn: () => void): void {
    this.stream.whenDone(fn);
  }

  resumed(): void {
    /* streams are independent: nothing waits behind one */
  }
}

function writePlain(stream: H2Stream, response: PlainResponse, headOnly: boolean): void {
  const fields = h2Fields(response.headers);
  fields.push(['date', httpDate()]);
  const body = headOnly || response.body.length === 0;
  stream.headers(response.status, fields, body);
  if (!body) stream.data(response.body, true);
}

/** The reason a raw HTTP/1.1 write gets on HTTP/2, should an endpoint that declares `h2` make one. */
const RAW_REASON = 'this response writes HTTP/1.1 bytes, which HTTP/2 frames cannot carry';

/** A chaos endpoint's ResponseSink over an HTTP/2 stream: HTTP-level lies only. */
class H2Sink implements ResponseSink {
  constructor(
    private readonly stream: H2Stream,
    readonly headOnly: boolean,
    private readonly holdMs: number,
  ) {}

  get closed(): boolean {
    return this.stream.closed;
  }
  get headWritten(): boolean {
    return this.stream.headersSent;
  }
  get ended(): boolean {
    return this.stream.ended;
  }

  head(status: number, headers: HeaderList): void {
    // An interim 1xx (other than 101) is its own HEADERS in HTTP/2 too; this sink writes only the final one.
    if (status < 200) return;
    this.stream.headers(status, h2Fields(headers), this.headOnly);
  }

  rawHead(): void {
    this.#refuseRaw();
  }

  write(chunk: Buffer | string): boolean {
    if (this.headOnly) return true;
    return this.stream.data(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk);
  }

  writeRaw(): boolean {
    this.#refuseRaw();
    return true;
  }

  end(action: EndAction = 'keep-alive'): void {
    if (action === 'hold') {
      // The head promised more than comes: the stream stays open without END_STREAM until the hold ends.
      this.setTimer(this.holdMs, () => this.stream.rst(ERROR.CANCEL));
      return;
    }
    if (action === 'reset' || action === 'upgrade') this.stream.rst(ERROR.INTERNAL_ERROR);
    else this.stream.end();
  }

  setTimer(ms: number, fn: () => void): void {
    this.stream.session.setTimer(ms, () => {
      if (!this.stream.closed) fn();
    });
  }

  whenWritable(fn: () => void): void {
    this.stream.whenWritable(fn);
  }

  onClose(listener: () => void): () => void {
    let live = true;
    this.stream.whenDone(() => {
      if (live && this.stream.closed) listener();
    });
    return () => void (live = false);
  }

  #refuseRaw(): void {
    if (this.stream.headersSent) this.stream.rst(ERROR.INTERNAL_ERROR);
    else writePlain(this.stream, errorResponse(501, RAW_REASON), this.headOnly);
  }
}
