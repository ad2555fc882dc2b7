// Twin content, headers family: /wrong-content-type, /cache-confused,
// /header-flood, /duplicate-headers, /huge-header, /cookies, /etag.
// Bodies and header values shared by each chaos endpoint and its control twin,
// so the twin serves the same resource and only the lie differs. Everything is
// built once at module load.
import { createHash } from 'node:crypto';
import type { HeaderList } from '../primitives/headers.js';
import { jsonBody } from '../primitives/json.js';
import { int, oneOf } from '../primitives/params.js';
import { seededBytes } from '../primitives/seed.js';

// ---------------------------------------------------------------- /wrong-content-type

export const CONTENT_TYPE_MODES = ['json-as-html', 'xml-as-json', 'html-as-json', 'json-as-png', 'missing'] as const;
export type ContentTypeMode = (typeof CONTENT_TYPE_MODES)[number];
export type BodyFormat = 'json' | 'xml' | 'html';

export interface MislabelledBody {
  /** The Content-Type sent; undefined = no Content-Type line at all. */
  readonly contentType: string | undefined;
  /** What the body really is. */
  readonly format: BodyFormat;
  readonly body: Buffer;
}

const LABELS: Readonly<Record<ContentTypeMode, readonly [string | undefined, BodyFormat]>> = {
  'json-as-html': ['text/html; charset=utf-8', 'json'],
  'xml-as-json': ['application/json', 'xml'],
  'html-as-json': ['application/json', 'html'],
  'json-as-png': ['image/png', 'json'],
  missing: [undefined, 'json'],
};

function mislabelled(mode: ContentTypeMode): MislabelledBody {
  const [contentType, format] = LABELS[mode];
  const labelled = contentType ?? 'nothing (no Content-Type header)';
  let text: string;
  switch (format) {
    case 'json':
      return {
        contentType,
        format,
        body: jsonBody({ endpoint: '/wrong-content-type', type: mode, body_format: 'json', labelled_as: contentType ?? null }),
      };
    case 'xml':
      text =
        '<?xml version="1.0" encoding="UTF-8"?>\n' +
        `<response><endpoint>/wrong-content-type</endpoint><type>${mode}</type>` +
        `<body_format>xml</body_format><labelled_as>${labelled}</labelled_as></response>\n`;
      break;
    case 'html':
      text =
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>/wrong-content-type</title></head>' +
        `<body><h1>${mode}</h1><p>This HTML page is labelled ${labelled}.</p></body></html>\n`;
      break;
  }
  return { contentType, format, body: Buffer.from(text, 'utf8') };
}

const MISLABELLED = new Map<ContentTypeMode, MislabelledBody>(CONTENT_TYPE_MODES.map((m) => [m, mislabelled(m)]));

export function mislabelledBody(mode: ContentTypeMode): MislabelledBody {
  return MISLABELLED.get(mode) as MislabelledBody;
}

const MATCHED = new Map<ContentTypeMode, Buffer>(
  CONTENT_TYPE_MODES.map((m) => [
    m,
    jsonBody({ endpoint: '/matched-content-type', type: m, body_format: 'json', labelled_as: 'application/json' }),
  ]),
);

/** The control twin (/matched-content-type): always JSON labelled application/json. */
export function matchedBody(mode: ContentTypeMode): Buffer {
  return MATCHED.get(mode) as Buffer;
}

// ---------------------------------------------------------------- /cache-confused

export const CACHE_MODES = ['all', 'store-vs-age', 'cache-vs-immutable', 'private-vs-shared'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

const CONTRADICTIONS: Readonly<Record<Exclude<CacheMode, 'all'>, string>> = {
  'store-vs-age': 'no-store, max-age=300',
  'cache-vs-immutable': 'no-cache, immutable',
  'private-vs-shared': 'private, s-maxage=3600',
};

/** The one Cache-Control value of each mode; `all` joins the three contradictions in one line. */
export const CACHE_CONTROL: Readonly<Record<CacheMode, string>> = {
  ...CONTRADICTIONS,
  all: Object.values(CONTRADICTIONS).join(', '),
};

export const COHERENT_CACHE_CONTROL = 'public, max-age=300';

const CACHE_BODIES = new Map<CacheMode, Buffer>(
  CACHE_MODES.map((mode) => [
    mode,
    jsonBody({
      endpoint: '/cache-confused',
      mode,
      cache_control: CACHE_CONTROL[mode],
      contradictions: mode === 'all' ? Object.keys(CONTRADICTIONS) : [mode],
    }),
  ]),
);

export function cacheConfusedBody(mode: CacheMode): Buffer {
  return CACHE_BODIES.get(mode) as Buffer;
}

export const CACHE_COHERENT_BODY = jsonBody({ endpoint: '/cache-coherent', cache_control: COHERENT_CACHE_CONTROL });

// ---------------------------------------------------------------- /header-flood

export const HEADER_FLOOD_MAX = 100;

/** `001`…`100`: the synthetic header's counter, zero-padded to three digits. */
export function floodCounter(i: number): string {
  return String(i).padStart(3, '0');
}

/** Suffix (after `X-Chaos-`) and value of the i-th synthetic header, 1-based. */
export const FLOOD_ENTRIES: readonly (readonly [string, string])[] = Array.from({ length: HEADER_FLOOD_MAX }, (_, k) => {
  const counter = floodCounter(k + 1);
  return [`Header-${counter}`, `flood-${counter}`] as const;
});

const FLOOD_BODIES: readonly Buffer[] = Array.from({ length: HEADER_FLOOD_MAX + 1 }, (_, n) =>
  jsonBody({ endpoint: '/header-flood', header_count: n, max: HEADER_FLOOD_MAX }),
);

export function headerFloodBody(n: number): Buffer {
  return FLOOD_BODIES[n] as Buffer;
}

/** The control twin: the same fields, the synthetic headers delivered as data in the body. */
export function headerFloodDataBody(n: number): Buffer {
  const headers: Record<string, string> = {};
  for (const [suffix, value] of FLOOD_ENTRIES.slice(0, n)) headers[`X-Chaos-${suffix}`] = value;
  return jsonBody({ endpoint: '/header-flood', header_count: n, max: HEADER_FLOOD_MAX, headers });
}

// ---------------------------------------------------------------- /duplicate-headers

export const DUPLICATE_MODES = ['content-type', 'content-length', 'cache-control', 'location', 'set-cookie-folded'] as const;
export type DuplicateMode = (typeof DUPLICATE_MODES)[number];

export const DUPLICATE_HEADERS_PARAMS = {
  mode: oneOf(DUPLICATE_MODES, { default: 'content-type', description: 'which header comes twice (set-cookie-folded: two cookies folded into one line)' }),
};

/** The header each mode doubles, as X-Chaos-Duplicated names it. */
export const DUPLICATED_HEADER: Readonly<Record<DuplicateMode, string>> = {
  'content-type': 'Content-Type',
  'content-length': 'Content-Length',
  'cache-control': 'Cache-Control',
  location: 'Location',
  'set-cookie-folded': 'Set-Cookie',
};

/** location: a redirect (the code every client follows); the others answer 200. */
export function duplicateStatus(mode: DuplicateMode): number {
  return mode === 'location' ? 302 : 200;
}

export const DUPLICATE_CONTENT_TYPES = ['application/json', 'text/html; charset=utf-8'] as const;
export const DUPLICATE_CACHE_CONTROLS = ['public, max-age=3600', 'no-store'] as const;
export const DUPLICATE_LOCATIONS = ['/status/200', '/status/418'] as const;
/** The first Expires holds a comma of its own, so a comma-folded line cannot be split back with certainty. */
export const FOLDED_COOKIES = ['first=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT', 'second=2; Path=/'] as const;

/**
 * Lines the chaos host adds after its ordinary head for `mode` (content-type
 * and content-length are written in place of the single line instead); the
 * twin sends the first of each pair, and both cookies on lines of their own.
 */
export function duplicateExtraLines(mode: DuplicateMode): HeaderList {
  switch (mode) {
    case 'cache-control':
      return DUPLICATE_CACHE_CONTROLS.map((v) => ['Cache-Control', v] as const);
    case 'location':
      return DUPLICATE_LOCATIONS.map((v) => ['Location', v] as const);
    case 'set-cookie-folded':
      return [['Set-Cookie', FOLDED_COOKIES.join(', ')]];
    default:
      return [];
  }
}

export function duplicateTwinLines(mode: DuplicateMode): HeaderList {
  switch (mode) {
    case 'cache-control':
      return [['Cache-Control', DUPLICATE_CACHE_CONTROLS[0]]];
    case 'location':
      return [['Location', DUPLICATE_LOCATIONS[0]]];
    case 'set-cookie-folded':
      return FOLDED_COOKIES.map((v) => ['Set-Cookie', v] as const);
    default:
      return [];
  }
}

export function duplicateHeadersBody(mode: DuplicateMode): Buffer {
  return jsonBody({ endpoint: '/duplicate-headers', mode, header: DUPLICATED_HEADER[mode] });
}

// ---------------------------------------------------------------- /huge-header

export const HUGE_HEADER_NAME = 'X-Huge-Header';
export const HUGE_HEADER_MAX = 262_144;

export const HUGE_HEADER_PARAMS = {
  size: int({ min: 1, max: HUGE_HEADER_MAX, default: 16_384, description: 'bytes in the one header value' }),
};

/** The value: the letters a–z repeating, built once for the largest size. */
const HUGE_VALUE = 'abcdefghijklmnopqrstuvwxyz'.repeat(Math.ceil(HUGE_HEADER_MAX / 26)).slice(0, HUGE_HEADER_MAX);
export function hugeHeaderValue(size: number): string {
  return HUGE_VALUE.slice(0, size);
}

/** The chaos body names the header; the twin's carries its value as data instead. */
export function hugeHeaderBody(size: number, withValue: boolean): Buffer {
  return jsonBody({ endpoint: '/huge-header', header: HUGE_HEADER_NAME, size, ...(withValue ? { value: hugeHeaderValue(size) } : {}) });
}

// ---------------------------------------------------------------- /cookies

export const COOKIE_MODES = [
  'malformed', 'conflicting-domain', 'conflicting-path', 'expired', 'oversized', 'samesite-none-insecure', 'many',
] as const;
export type CookieMode = (typeof COOKIE_MODES)[number];

export const COOKIES_PARAMS = {
  mode: oneOf(COOKIE_MODES, { default: 'malformed', description: 'how the Set-Cookie lines are wrong' }),
};

/** Name and value of the oversized cookie: 5000 bytes, over the 4096 RFC 6265 §6.1 asks clients to keep. */
const OVERSIZED_VALUE = 'x'.repeat(4996);
const MANY = Array.from({ length: 200 }, (_, i) => `c${String(i + 1).padStart(3, '0')}=${i + 1}; Path=/`);

/** The Set-Cookie values the chaos host sends for `mode`; `domain` is its own host name. */
export function chaosCookies(mode: CookieMode, domain: string): readonly string[] {
  switch (mode) {
    case 'malformed':
      return ['session', '=no-name; Path=/', 'bad name=1; Path=/', 'attrs=1; Max-Age=soon; Expires=tomorrow; Path=/'];
    case 'conflicting-domain':
      return ['session=host-only; Path=/', `session=domain-wide; Domain=${domain}; Path=/`];
    case 'conflicting-path':
      return ['session=root; Path=/', 'session=cookies; Path=/cookies'];
    case 'expired':
      return ['session=expired; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT'];
    case 'oversized':
      return [`big=${OVERSIZED_VALUE}; Path=/`];
    case 'samesite-none-insecure':
      return ['session=cross-site; Path=/; SameSite=None'];
    case 'many':
      return MANY;
  }
}

/** The one well-formed cookie the twin sets, whatever the mode. */
export const TWIN_COOKIE = 'session=ok; Path=/; HttpOnly; SameSite=Lax';

export function cookiesBody(mode: CookieMode, count: number): Buffer {
  return jsonBody({ endpoint: '/cookies', mode, set_cookie_lines: count });
}

// ---------------------------------------------------------------- /etag
// One JSON document with a strong validator and a Last-Modified in the past.

export const ETAG_UPDATED_AT = Date.UTC(2024, 0, 1);

/** The body of /etag: `value` and `updated_at` change only in the mutating chaos mode. */
export function etagDocument(value: string, updatedAtMs: number): Buffer {
  return jsonBody({ endpoint: '/etag', value, updated_at: new Date(updatedAtMs).toISOString() });
}

/** The canonical document: the control twin's body and the chaos host's fixed-mode body. */
export const ETAG_BODY: Buffer = etagDocument(seededBytes('etag:canonical', 8).toString('hex'), ETAG_UPDATED_AT);
/** Opaque part of the canonical ETag (no quotes): a digest of the canonical document. */
export const ETAG_OPAQUE: string = createHash('sha256').update(ETAG_BODY).digest('hex').slice(0, 16);
export const ETAG_STRONG = `"${ETAG_OPAQUE}"`;
export const ETAG_LAST_MODIFIED: string = new Date(ETAG_UPDATED_AT).toUTCString();

/**
 * Entity tags of an If-None-Match value; `*` alone gives ['*']. Undefined when
 * the value does not parse (the field is then ignored). Tags keep their `W/`.
 */
export function parseEntityTags(value: string): string[] | undefined {
  const trimmed = value.trim();
  if (trimmed === '*') return ['*'];
  const tags: string[] = [];
  // etagc allows commas, so the list is scanned tag by tag, never split on ','.
  const re = /\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(,|$)/y;
  let index = 0;
  while (index < trimmed.length) {
    re.lastIndex = index;
    const m = re.exec(trimmed);
    if (!m) {
      // Empty list elements (", ,") are allowed by the #rule.
      const empty = /\s*,/y;
      empty.lastIndex = index;
      if (empty.exec(trimmed)) {
        index = empty.lastIndex;
        continue;
      }
      return undefined;
    }
    tags.push(`${m[1] ?? ''}"${m[2] ?? ''}"`);
    index = re.lastIndex;
    if (m[3] === '') break;
  }
  return tags.length > 0 ? tags : undefined;
}

const DAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ( \\d|\\d{2}) ${TIME} \\d{4}$`);

/**
 * An HTTP-date (RFC 9110 §5.6.7: IMF-fixdate and the two obsolete forms) in
 * epoch ms; undefined for anything else, which the caller then ignores.
 */
export function parseHttpDate(value: string): number | undefined {
  const text = value.trim();
  let ms = Number.NaN;
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) ms = Date.parse(text);
  else if (ASCTIME_DATE.test(text)) ms = Date.parse(`${text} GMT`); // asctime is UTC without saying so
  return Number.isNaN(ms) ? undefined : ms;
}

/** Weak comparison (RFC 9110 §8.8.3.2), as If-None-Match uses: W/ is ignored on both sides. */
export function weakMatch(tags: readonly string[], etag: string): boolean {
  const opaque = etag.replace(/^W\//, '');
  return tags.some((tag) => tag === '*' || tag.replace(/^W\//, '') === opaque);
}
