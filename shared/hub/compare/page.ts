// The hub's /compare: one chaos answer beside its twin's, fetched by the hub
// itself over raw sockets. The path asked for must be one a chaos endpoint
// serves (the chaos registry's own matching), and the sockets only ever go to
// the configured public URLs (or COMPARE_VIA): never to a URL from the
// request. Both fetches are bounded in time and bytes, and the number of
// compares in flight is capped per process and per client.
import { counterpartUrl, hostUrl, suggestPaths, wantsJson } from '../../catalog/catalog.js';
import type { Config } from '../../config/config.js';
import type { HubPage } from '../../pipeline/dispatch.js';
import type { IncomingRequest } from '../../pipeline/transport.js';
import { busyRefusal, errorResponse, type PlainResponse } from '../../registry/errors.js';
import { grammar, parseParams, safeDecode, splitQuery, type ItemOutcome, type ParamErrorBody } from '../../primitives/params.js';
import { allowedMethods, counterpartOf, type AnyEndpoint, type Registry } from '../../registry/registry.js';
import { renderCompareHtml, COMPARE_CSP } from './html.js';
import { differences, sideReport, type CompareReport } from './report.js';
import { fetchRaw, upstreamFor, type WireLimits } from './wire.js';

/** Where the hub serves the compare. */
export const COMPARE_PATH = '/compare';

export interface CompareLimits extends WireLimits {
  /** Compares running at once in this process; past it, 503 with Retry-After. */
  readonly maxInFlight: number;
  /** Compares running at once for one client address; past it, 429 with Retry-After. */
  readonly maxInFlightPerClient: number;
}

export const COMPARE_LIMITS: CompareLimits = {
  timeoutMs: 5_000,
  maxBytes: 64 * 1024,
  settleMs: 300,
  maxInFlight: 16,
  maxInFlightPerClient: 4,
};

/** The longest path (with its query) the compare sends. */
export const MAX_COMPARED_PATH = 2048;

/** Headline lies the page links; each must be served by the chaos registry (checked at start-up). */
export const COMPARE_EXAMPLES = [
  '/truncate?at=10',
  '/status/418',
  '/reset?phase=mid-body&after=64',
  '/duplicate-headers?mode=content-length',
  '/chunked?mode=bad-size',
  '/status-line?mode=lf-only',
  '/wrong-content-type',
  '/stall?after=4',
] as const;

/** The chaos registry, as the compare reads it (any context type: only paths and twins are read). */
export type ChaosRoutes = Registry<never>;
type ChaosEndpoint = AnyEndpoint<never>;

/** A path the compare will fetch: as sent, split, and the chaos endpoint that serves it. */
interface ComparedPath {
  readonly target: string;
  readonly path: string;
  readonly query: string;
  readonly endpoint: ChaosEndpoint;
}

const PATH_CHARS_RE = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;
const CHAR_NAMES: Readonly<Record<string, string>> = { ' ': 'a space', '\r': 'a CR', '\n': 'a LF', '\t': 'a tab', '#': 'a #' };

function describeChar(c: string): string {
  const code = c.codePointAt(0) as number;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return CHAR_NAMES[c] ?? (code < 0x20 || code === 0x7f ? `a control character (${hex})` : code > 0x7e ? `${JSON.stringify(c)} (${hex}, not ASCII)` : JSON.stringify(c));
}

/** The table of /compare's parameters (the shared parameter rules: 400 with the usual error body). */
function compareParams(chaos: ChaosRoutes) {
  const path = {
    ...grammar<ComparedPath>({
      accepted: [`a path and query on the chaos host that a chaos endpoint serves, such as ${COMPARE_EXAMPLES[0]} (at most ${MAX_COMPARED_PATH} characters)`],
      description: 'the chaos path to compare with its twin; a query of its own is sent as given',
      parse: (raw) => parseComparedPath(chaos, raw),
    }),
    // Required: without it there is nothing to compare (a bare /compare is the form, answered before parsing).
    required: true,
  };
  const format = grammar<'html' | 'json'>({
    accepted: ['html', 'json'],
    description: 'the answer\'s form; absent: by Accept',
    parse: (raw) => (raw === 'html' || raw === 'json' ? { ok: true, value: raw } : { ok: false, reason: 'must be one of html, json' }),
  });
  return { path, format };
}

/** Checks a path before anything is sent: a chaos endpoint's path, plain URL characters only, bounded. */
export function parseComparedPath(chaos: ChaosRoutes, raw: string): ItemOutcome<ComparedPath> {
  if (raw === '') return { ok: false, reason: `is empty: give a path on the chaos host, such as ${COMPARE_EXAMPLES[0]}` };
  if (raw.length > MAX_COMPARED_PATH) return { ok: false, reason: `is ${raw.length} characters long; at most ${MAX_COMPARED_PATH}` };
  if (!PATH_CHARS_RE.test(raw)) {
    const at = [...raw].findIndex((c) => !PATH_CHARS_RE.test(c));
    const c = [...raw][at] as string;
    return { ok: false, reason: `holds ${describeChar(c)} at character ${at + 1}: only URL characters (RFC 3986) are sent; percent-encode anything else` };
  }
  if (!raw.startsWith('/') || raw.startsWith('//')) {
    return { ok: false, reason: 'must start with a single /: a path on the chaos host, never a URL or //host (the compare fetches only the configured hosts)' };
  }
  const q = raw.indexOf('?');
  const path = q === -1 ? raw : raw.slice(0, q);
  const match = chaos.match(path);
  if (!match) {
    const near = suggestPaths(chaos, path);
    return { ok: false, reason: `names no chaos endpoint: ${path.length > 80 ? `${path.slice(0, 80)}…` : path}${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}` };
  }
  if (!allowedMethods(match.endpoint).includes('GET')) {
    return { ok: false, reason: `names ${match.endpoint.path}, which does not serve GET (${allowedMethods(match.endpoint).join(', ')}): the compare sends GET` };
  }
  return { ok: true, value: { target: raw, path, query: q === -1 ? '' : raw.slice(q + 1), endpoint: match.endpoint } };
}

/** A real refusal of ours (problem+json, no X-Chaos-* line), with Retry-After. */
function busy(status: 429 | 503, detail: string, policy: string): PlainResponse {
  return busyRefusal(status, detail, policy, [['Cache-Control', 'no-store']]);
}

export interface ComparePageOptions {
  readonly chaos: ChaosRoutes;
  readonly config: Config;
  readonly limits?: Partial<CompareLimits>;
}

export class ComparePage implements HubPage {
  readonly limits: CompareLimits;
  readonly #chaos: ChaosRoutes;
  readonly #config: Config;
  readonly #params: ReturnType<typeof compareParams>;
  #inFlight = 0;
  readonly #perClient = new Map<string, number>();

  constructor(options: ComparePageOptions) {
    this.#chaos = options.chaos;
    this.#config = options.config;
    this.limits = { ...COMPARE_LIMITS, ...options.limits };
    this.#params = compareParams(options.chaos);
    // The page links them: a renamed endpoint must stop start-up, not leave a dead example.
    const broken = COMPARE_EXAMPLES.filter((example) => !parseComparedPath(options.chaos, example).ok);
    if (broken.length > 0) throw new Error(`compare examples no chaos endpoint serves: ${broken.join(', ')}`);
  }

  /** Compares running now in this process. */
  get inFlight(): number {
    return this.#inFlight;
  }

  async answer(req: IncomingRequest, client: string, signal: AbortSignal): Promise<PlainResponse> {
    const pairs = splitQuery(req.query);
    const asked = pairs.get('format');
    const askedFormat = asked === undefined ? undefined : safeDecode(asked);
    const json = askedFormat === 'json' || (askedFormat !== 'html' && wantsJson(req.headers.get('accept')));
    // A bare /compare in a browser is the empty form; a script asking for JSON is told what is missing.
    if (req.query === '' && !json) return this.#html(200, renderCompareHtml({ limits: this.limits, examples: COMPARE_EXAMPLES }));
    const parsed = parseParams(COMPARE_PATH, this.#params, pairs, undefined);
    const unknown = [...pairs.keys()].find((name) => !(name in this.#params));
    const error: ParamErrorBody | undefined = !parsed.ok
      ? parsed.error
      : unknown !== undefined
        ? {
            endpoint: COMPARE_PATH,
            error: 'invalid_parameter',
            requested: unknown.length > 256 ? `${unknown.slice(0, 256)}…` : unknown,
            reason:
              `${unknown} is not a parameter of ${COMPARE_PATH} (it takes path and format): the compared path's own query goes inside path, ` +
              'with & written %26 (the form does this)',
            param: unknown,
            accepted: Object.keys(this.#params),
          }
        : undefined;
    if (error || !parsed.ok) {
      const failure = error as ParamErrorBody;
      if (json) return errorResponse(400, failure, [['Cache-Control', 'no-store'], ['Vary', 'Accept']]);
      const given = pairs.get('path');
      return this.#html(400, renderCompareHtml({ limits: this.limits, examples: COMPARE_EXAMPLES, error: failure, given: given === undefined ? '' : (safeDecode(given) ?? given) }));
    }
    const mine = this.#perClient.get(client) ?? 0;
    if (mine >= this.limits.maxInFlightPerClient) {
      return busy(429, `This client already has ${mine} compares running (at most ${this.limits.maxInFlightPerClient} at once); retry when one has ended. This is a real limit, not chaos.`, 'compare');
    }
    if (this.#inFlight >= this.limits.maxInFlight) {
      return busy(503, `The hub runs at most ${this.limits.maxInFlight} compares at once and all are busy; retry in a second. This is a real limit, not chaos.`, 'compare');
    }
    this.#inFlight++;
    this.#perClient.set(client, mine + 1);
    try {
      // Present: the parameter is required.
      const report = await this.compare(parsed.values.path as ComparedPath, signal);
      if (json) {
        const body = Buffer.from(`${JSON.stringify(report, null, 2)}\n`);
        return { status: 200, headers: [['Content-Type', 'application/json'], ['Content-Length', String(body.length)], ['Cache-Control', 'no-store'], ['Vary', 'Accept']], body };
      }
      return this.#html(200, renderCompareHtml({ limits: this.limits, examples: COMPARE_EXAMPLES, report }));
    } finally {
      this.#inFlight--;
      const left = (this.#perClient.get(client) ?? 1) - 1;
      if (left === 0) this.#perClient.delete(client);
      else this.#perClient.set(client, left);
    }
  }

  /** Fetches both sides at once and reads them. */
  async compare(compared: ComparedPath, signal?: AbortSignal): Promise<CompareReport> {
    const config = this.#config;
    const via = config.compareVia;
    const chaosSide = upstreamFor(hostUrl('chaos', config.urls), compared.target, via);
    const twin = counterpartOf('chaos', compared.endpoint);
    // The twin's URL as the control host names it (a templated twin by the concrete path), with the same query.
    const twinUrl = twin === null ? null : counterpartUrl('chaos', compared.endpoint, config.urls, compared.path);
    const twinBase = twin === null ? '' : hostUrl(twin.host, config.urls);
    const twinSide = twinUrl === null ? undefined : upstreamFor(twinBase, twinUrl.slice(twinBase.length) + (compared.query ? `?${compared.query}` : ''), via);
    const [chaosCapture, twinCapture] = await Promise.all([
      fetchRaw(chaosSide, this.limits, signal),
      twinSide ? fetchRaw(twinSide, this.limits, signal) : undefined,
    ]);
    const chaos = sideReport('chaos', chaosSide, chaosCapture, this.limits);
    const twinReport = twin && twinSide && twinCapture ? sideReport(twin.host, twinSide, twinCapture, this.limits) : null;
    const { endpoint } = compared;
    return {
      path: compared.target,
      endpoint: { id: endpoint.id, path: endpoint.path, category: endpoint.category },
      limits: { timeout_ms: this.limits.timeoutMs, max_bytes: this.limits.maxBytes },
      chaos,
      twin: twinReport,
      twin_note: twinReport ? null : `${endpoint.path} has no twin: no other host serves a well-formed counterpart of it`,
      differences: twinReport ? differences(chaos, twinReport) : [],
    };
  }

  #html(status: number, html: string): PlainResponse {
    const body = Buffer.from(html);
    return {
      status,
      headers: [
        ['Content-Type', 'text/html; charset=utf-8'],
        ['Content-Length', String(body.length)],
        ['Content-Security-Policy', COMPARE_CSP],
        ['X-Content-Type-Options', 'nosniff'],
        ['Referrer-Policy', 'no-referrer'],
        ['Cache-Control', 'no-store'],
        ['Vary', 'Accept'],
      ],
      body,
    };
  }
}
