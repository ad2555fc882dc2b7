// GET /infinite/<json|html>/<users|products|posts|comments>/<tail>: endless,
// deterministic generated content for crawler and scraper tests (SPEC §4.2).
// One definition serves both formats and all four types, as the spec's single
// parameter table ("applies to") describes; see README, Infinite content.
import { escapeHtml } from '../../../../shared/primitives/html.js';
import { ERROR_CODES, errorDocument, errorResponse, type PlainResponse } from '../../../../shared/registry/errors.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { defineControlEndpoint, type HttpContext } from '../../../../shared/http/http-service.js';
import { int, type ParamErrorBody } from '../../../../shared/primitives/params.js';
import {
  INFINITE_FORMATS, INFINITE_TYPES, MAX_LINKS, MAX_TAIL_CHARS, MAX_TAIL_SEGMENTS, renderInfinite, segmentCount,
  type InfiniteFormat, type InfiniteType,
} from '../../infinite/index.js';
import { fieldsParam, pathWord, tailParam, tailProblem } from '../../infinite/params.js';

const PATH = '/infinite/{format}/{type}/{path*}';
const ROBOTS: readonly [string, string] = ['X-Robots-Tag', 'noindex, nofollow'];
const FORMATS: ReadonlySet<string> = new Set(INFINITE_FORMATS);
const TYPES: ReadonlySet<string> = new Set(INFINITE_TYPES);

/**
 * Fixed lines per format and type, built once. The content never changes for
 * a URL, so every combination may be cached for a day (the spec's value for
 * html users and products, applied to all for consistency).
 */
const OK_LINES = new Map<string, HeaderList>();
for (const format of INFINITE_FORMATS) {
  for (const type of INFINITE_TYPES) {
    OK_LINES.set(`${format}/${type}`, [
      ['Cache-Control', 'public, max-age=86400'],
      ROBOTS,
      ['X-Not-Payload', 'infinite'],
      ['X-Not-Infinite-Type', type],
      ['X-Not-Infinite-Format', format],
    ]);
  }
}

function write(ctx: HttpContext, status: number, lines: HeaderList, body: Buffer): void {
  ctx.res.writeHead(status, lines.flat());
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
}

// Real failures under the namespace go through errors.ts with X-Robots-Tag added (no X-Chaos-* line).

/** Shows at most 80 characters of a value echoed in an error. */
function shown(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}

function notFound(format: string, param: 'format' | 'type', value: string): PlainResponse {
  const accepted = param === 'format' ? INFINITE_FORMATS : INFINITE_TYPES;
  const reason = `unknown ${param} ${JSON.stringify(shown(value))}: use one of ${accepted.join(', ')}`;
  if (format === 'html') {
    const examples = INFINITE_TYPES.map((t) => `<li><a href="/infinite/html/${t}/hello">/infinite/html/${t}/hello</a></li>`).join('\n');
    const page =
      '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="robots" content="noindex, nofollow">\n' +
      '<title>Not found: infinite content</title>\n</head>\n<body>\n<main>\n<h1>Not found</h1>\n' +
      `<p>${escapeHtml(reason)}.</p>\n<p>Pages look like <code>${PATH}</code>, for example:</p>\n<ul>\n${examples}\n</ul>\n` +
      '</main>\n</body>\n</html>\n';
    return errorDocument(404, 'text/html; charset=utf-8', Buffer.from(page), [ROBOTS]);
  }
  return errorResponse(404, { endpoint: PATH, error: ERROR_CODES[404], requested: value, reason, param, accepted }, [ROBOTS]);
}

/** The tail exactly as sent (still percent-encoded): it is what seeds the content. */
function rawTail(path: string): string {
  // path is /infinite/<format>/<type>/<tail>; the route matched, so all four slashes exist.
  const a = path.indexOf('/', 1);
  const b = path.indexOf('/', a + 1);
  return path.slice(path.indexOf('/', b + 1) + 1);
}

export default defineControlEndpoint({
  id: 'infinite',
  path: PATH,
  category: 'infinite',
  summary:
    'Endless deterministic users, products, posts and comments as JSON documents or linked HTML pages, seeded by the path tail; ' +
    'at most 20 KB per body and 10 requests per 60 s per IP',
  params: {
    format: pathWord(INFINITE_FORMATS, 'json or html; another value is a 404'),
    type: pathWord(INFINITE_TYPES, 'the kind of entity; another value is a 404'),
    path: tailParam,
    links: int({ min: 0, max: MAX_LINKS, default: MAX_LINKS, silentClamp: true, description: 'html only: outbound links; out-of-range values are clamped silently' }),
    fields: fieldsParam,
  },
  headers: ['Cache-Control', 'X-Robots-Tag', 'X-Not-Payload', 'X-Not-Infinite-Type', 'X-Not-Infinite-Format', 'X-Not-Infinite-Truncated'],
  // Generated content has no chaos twin: answers carry X-Chaos-Origin and no X-Chaos-Counterpart.
  counterpart: null,
  admission: {
    // Its own per-IP policy (RATE_LIMIT_INFINITE), decided with the general one in one store call.
    limits: ['infinite'],
    // Requests refused before the generator (unknown format or type, a tail too long or unsafe) are not counted by it.
    screen({ format, type }, path) {
      if (!FORMATS.has(format)) return notFound('json', 'format', format);
      if (!TYPES.has(type)) return notFound(format, 'type', type);
      const tail = rawTail(path);
      if (tail.length > MAX_TAIL_CHARS || segmentCount(tail) > MAX_TAIL_SEGMENTS) {
        return errorResponse(414, {
          endpoint: PATH,
          error: ERROR_CODES[414],
          requested: shown(tail),
          reason: `the path tail has ${tail.length} characters in ${segmentCount(tail)} segments; at most ${MAX_TAIL_CHARS} characters and ${MAX_TAIL_SEGMENTS} segments are served`,
          param: 'path',
          accepted: tailParam.accepted,
        }, [ROBOTS]);
      }
      const problem = tailProblem(tail);
      // The shape of the service's parameter errors, so clients need one parser.
      if (problem !== undefined) {
        const body: ParamErrorBody = { endpoint: PATH, error: 'invalid_parameter', requested: shown(tail), reason: `path ${problem}`, param: 'path', accepted: tailParam.accepted };
        return errorResponse(400, body, [ROBOTS]);
      }
      return undefined;
    },
  },
  wire: {
    // Every answer under /infinite/ tells crawlers to stay out, the router's 400/405 too.
    alwaysHeaders: [ROBOTS],
  },
  docs: {
    example: { target: '/infinite/json/users/alice' },
  },
  handle(ctx, { format, type, links, fields }) {
    const tail = rawTail(ctx.path);
    const { body, truncated } = renderInfinite(format as InfiniteFormat, type as InfiniteType, tail, { links, fields });
    const lines: HeaderList = [
      ['Content-Type', format === 'html' ? 'text/html; charset=utf-8' : 'application/json'],
      ['Content-Length', String(body.length)],
      ...(OK_LINES.get(`${format}/${type}`) as HeaderList),
    ];
    if (truncated) lines.push(['X-Not-Infinite-Truncated', 'true']);
    lines.push(...ctx.headers);
    write(ctx, 200, lines, body);
  },
});
