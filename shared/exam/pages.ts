// The client exam's pages on the hub (docs/exam.md): POST /exam?profile= and
// GET /exam/new?profile= open an exam (201), GET /exam/{id} grades it (JSON,
// or HTML for a browser), GET /exam/{id}.md as a Markdown table. An exam is
// a log in the store (Redis or memory) living EXAM_TTL_SECONDS, at most
// EXAM_MAX_OPEN_PER_IP open per client address.
import { wantsJson } from '../catalog/catalog.js';
import { CATALOG_PAGE_HEADERS } from '../catalog/catalog-assets.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/log.js';
import type { HubPage } from '../pipeline/dispatch.js';
import type { IncomingRequest } from '../pipeline/transport.js';
import type { HeaderList } from '../primitives/headers.js';
import { jsonBody } from '../primitives/json.js';
import { splitQuery } from '../primitives/params.js';
import { unguessableId } from '../primitives/seed.js';
import { errorResponse, type PlainResponse } from '../registry/errors.js';
import type { Store } from '../store/types.js';
import { PROFILE_NAMES } from './profiles.js';
import { examKey } from './recorder.js';
import { gradeExam, reportHtml, reportMarkdown, reportUrl, stepsOf, stepUrl, type ExamHead } from './report.js';

const ID_RE = /^[A-Za-z0-9_-]{22}$/;
const NO_STORE: HeaderList = [['Cache-Control', 'no-store']];

function json(status: 200 | 201, value: object, extra: HeaderList = []): PlainResponse {
  const body = jsonBody(value);
  return { status, headers: [['Content-Type', 'application/json'], ['Content-Length', String(body.length)], ...NO_STORE, ...extra], body };
}

function text(contentType: string, body: string, extra: HeaderList = []): PlainResponse {
  const bytes = Buffer.from(body);
  return { status: 200, headers: [['Content-Type', contentType], ['Content-Length', String(bytes.length)], ...NO_STORE, ...extra], body: bytes };
}

export class ExamPages {
  readonly #create: HubPage;
  /** The same opening for a browser's address bar: GET, answered like the POST. */
  readonly #createByGet: HubPage;
  readonly #report: HubPage;

  constructor(
    private readonly store: Store,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {
    this.#create = { methods: ['POST'], answer: (req, client) => this.#open(req, client) };
    this.#createByGet = { answer: (req, client) => this.#open(req, client) };
    this.#report = { answer: (req) => this.#graded(req) };
  }

  /** The page at `path`, or undefined (the catalog's 404). */
  pageAt(path: string): HubPage | undefined {
    if (path === '/exam') return this.#create;
    if (path === '/exam/new') return this.#createByGet;
    if (path.startsWith('/exam/')) return this.#report;
    return undefined;
  }

  async #open(req: IncomingRequest, clientAddress: string): Promise<PlainResponse> {
    const profile = splitQuery(req.query).get('profile');
    if (profile === undefined || !PROFILE_NAMES.includes(profile)) {
      return errorResponse(400, {
        error: profile === undefined ? 'missing_parameter' : 'invalid_parameter',
        requested: profile ?? null,
        reason: `profile must be one of ${PROFILE_NAMES.join(', ')}`,
        param: 'profile',
        accepted: PROFILE_NAMES,
      });
    }
    const { urls, examTtlMs, examMaxOpenPerIp } = this.config;
    const id = unguessableId();
    const now = Date.now();
    const head: ExamHead = { profile, created_at: new Date(now).toISOString(), expires_at: new Date(now + examTtlMs).toISOString() };
    const opening = await this.store.openLog(examKey(id), JSON.stringify(head), examTtlMs, `exam:${clientAddress}`, examMaxOpenPerIp);
    if (!opening.opened) return floodRefusal(examMaxOpenPerIp, opening.retryAfterMs);
    this.logger.debug({ profile }, 'exam opened');
    const { steps: defs, notes } = stepsOf(profile, this.config);
    const steps = defs.map((step) => ({ name: step.name, url: stepUrl(this.config, id, step), what_a_good_client_does: step.what }));
    const report = reportUrl(urls, id);
    return json(201, { id, profile, expires_at: head.expires_at, steps, ...(notes.length > 0 ? { notes } : {}), report_url: report }, [['Location', report]]);
  }

  async #graded(req: IncomingRequest): Promise<PlainResponse> {
    const rest = req.path.slice('/exam/'.length);
    const markdown = rest.endsWith('.md');
    const id = markdown ? rest.slice(0, -3) : rest;
    const log = ID_RE.test(id) ? await this.store.readLog(examKey(id)) : undefined;
    if (log === undefined) return errorResponse(404, 'no such exam: it never existed or has expired (exams live EXAM_TTL_SECONDS)');
    const report = gradeExam(this.config, id, JSON.parse(log.head) as ExamHead, log.entries);
    if (markdown) return text('text/markdown; charset=utf-8', reportMarkdown(report));
    if (wantsJson(req.headers.get('accept')) || !prefersHtml(req.headers.get('accept'))) return json(200, report, [['Vary', 'Accept']]);
    return text('text/html; charset=utf-8', reportHtml(report, this.config.urls), [['Vary', 'Accept'], ...CATALOG_PAGE_HEADERS]);
  }
}

/** A browser asks for text/html by name; curl's Accept (any type) gets the JSON. */
function prefersHtml(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/html\b/i.test(accept);
}

/** The per-client cap on open exams: a real 429 (problem+json, no X-Chaos-*) with Retry-After until the oldest expires. */
function floodRefusal(cap: number, retryAfterMs: number): PlainResponse {
  const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const body = jsonBody({
    type: 'about:blank',
    title: 'Too Many Requests',
    status: 429,
    detail: `This client already has ${cap} open exams (EXAM_MAX_OPEN_PER_IP); the oldest expires in ${retryAfter} s. This is a real limit, not chaos.`,
    policy: 'exam',
  });
  return {
    status: 429,
    headers: [['Content-Type', 'application/problem+json'], ['Content-Length', String(body.length)], ['Retry-After', String(retryAfter)], ...NO_STORE],
    body,
  };
}
