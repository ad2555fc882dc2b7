// Twin content, pagination family: /pagination and /pagination-link on both
// hosts. One fixed, seeded collection; the control twin pages it correctly
// (RFC 8288 Link header, X-Total-Count, stable opaque cursors, as json-server
// does), and each chaos mode changes exactly one thing about the walk. Every
// link is a relative reference (same host) that keeps the mode and the size.
import { jsonBody } from '../primitives/json.js';
import { grammar, int, oneOf } from '../primitives/params.js';
import { rngFromSeed } from '../primitives/seed.js';

export const PAGINATION_MODES = [
  'lying-total',
  'overlapping-pages',
  'link-loop',
  'size-drift',
  'skipped-items',
  'dead-next',
  'cursor-loop',
  'expired-cursor',
  'duplicate-ids',
] as const;
export type PaginationMode = (typeof PAGINATION_MODES)[number];

export const PAGINATION_LINK_MODES = ['next-differs', 'missing-in-body', 'missing-in-header', 'swapped-rels'] as const;
export type PaginationLinkMode = (typeof PAGINATION_LINK_MODES)[number];

/**
 * Items really in the collection. Twenty, so that every page of every size
 * (1–100) is reachable within `page` 1–20.
 */
export const COLLECTION_SIZE = 20;
/** What lying-total claims. */
export const CLAIMED_TOTAL = 100;
export const PAGE_MAX = 20;
export const SIZE_MAX = 100;

export interface Item {
  readonly id: string;
  readonly name: string;
  readonly value: number;
}

const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'heath', 'iris', 'juniper', 'kestrel', 'lumen'];

/** The collection, built once from a fixed seed: the same twenty items on every start. */
export const COLLECTION: readonly Item[] = (() => {
  const rng = rngFromSeed('pagination:collection');
  return Array.from({ length: COLLECTION_SIZE }, (_, i) => ({
    id: `item-${String(i + 1).padStart(2, '0')}`,
    name: `${rng.pick(WORDS)}-${rng.pick(WORDS)}-${i + 1}`,
    value: rng.intBetween(0, 999),
  }));
})();

// ---------------------------------------------------------------- cursors

/** A position in the collection: where a page starts and how long it is. */
export interface Cursor {
  readonly offset: number;
  readonly size: number;
}

const CURSOR_RE = /^pg1:(\d{1,3}):(\d{1,3})$/;

/** Opaque to clients, stable for a position: base64url of `pg1:<offset>:<size>`. */
export function encodeCursor({ offset, size }: Cursor): string {
  return Buffer.from(`pg1:${offset}:${size}`, 'latin1').toString('base64url');
}

function decodeCursor(raw: string): Cursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(raw)) return undefined;
  const m = CURSOR_RE.exec(Buffer.from(raw, 'base64url').toString('latin1'));
  if (!m) return undefined;
  const offset = Number(m[1]);
  const size = Number(m[2]);
  if (size < 1 || size > SIZE_MAX || offset > COLLECTION_SIZE) return undefined;
  return { offset, size };
}

// ---------------------------------------------------------------- parameters

/** The parameters both hosts take at both paths, so switching the host is enough. */
const PAGE_PARAMS = {
  page: int({ min: 1, max: PAGE_MAX, default: 1, description: 'page number (ignored when a cursor is given)' }),
  size: int({ min: 1, max: SIZE_MAX, default: 10, description: 'items per page (a cursor carries its own)' }),
  cursor: grammar<Cursor>({
    accepted: ['an opaque cursor from a previous page (next_cursor or a cursor link)'],
    description: 'continue from a cursor a previous page gave',
    parse(raw) {
      const cursor = decodeCursor(raw);
      return cursor ? { ok: true, value: cursor } : { ok: false, reason: 'is not a cursor this service issued' };
    },
  }),
};

export const PAGINATION_PARAMS = {
  mode: oneOf(PAGINATION_MODES, { default: 'lying-total', description: 'which paging lie (the twin accepts it and pages correctly)' }),
  ...PAGE_PARAMS,
};

export const PAGINATION_LINK_PARAMS = {
  mode: oneOf(PAGINATION_LINK_MODES, {
    default: 'next-differs',
    description: 'how the Link header and the body disagree (the twin accepts it; its two agree)',
  }),
  ...PAGE_PARAMS,
};

// ---------------------------------------------------------------- pages

export type Rel = 'first' | 'prev' | 'next' | 'last';
export const RELS: readonly Rel[] = ['first', 'prev', 'next', 'last'];
export type Links = Partial<Record<Rel, string>>;

export interface PageRequest<M extends string> {
  readonly path: '/pagination' | '/pagination-link';
  readonly mode: M;
  readonly page: number;
  readonly size: number;
  readonly cursor: Cursor | undefined;
}

/** One answer: status, the lines beyond the common head, and the body. */
export interface PageAnswer {
  readonly status: 200 | 410;
  readonly contentType: string;
  /** Link and X-Total-Count (a 410 carries none). */
  readonly headers: Array<readonly [string, string]>;
  readonly body: Buffer;
}

function pageUrl(path: string, mode: string, page: number, size: number): string {
  return `${path}?mode=${mode}&page=${page}&size=${size}`;
}

function cursorUrl(path: string, mode: string, cursor: Cursor): string {
  return `${path}?mode=${mode}&size=${cursor.size}&cursor=${encodeCursor(cursor)}`;
}

/** RFC 8288: `<uri>; rel="next", …` in first, prev, next, last order; undefined when there is no link. */
export function linkHeader(links: Links): string | undefined {
  const parts = RELS.filter((rel) => links[rel] !== undefined).map((rel) => `<${links[rel] as string}>; rel="${rel}"`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

function bodyLinks(links: Links): Record<Rel, string | null> {
  return { first: links.first ?? null, prev: links.prev ?? null, next: links.next ?? null, last: links.last ?? null };
}

function lastPage(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}

interface Served {
  readonly items: readonly Item[];
  readonly page: number;
  /** The size the body reports. */
  readonly size: number;
  readonly total: number;
  readonly totalPages: number;
  readonly headerLinks: Links;
  readonly bodyLinks: Links;
  /** Present on cursor walks (the twin's every page, the cursor modes). */
  readonly nextCursor?: string | null;
}

function answer(path: string, mode: string, served: Served): PageAnswer {
  const headers: Array<readonly [string, string]> = [];
  const link = linkHeader(served.headerLinks);
  if (link !== undefined) headers.push(['Link', link]);
  headers.push(['X-Total-Count', String(served.total)]);
  const body = jsonBody({
    endpoint: path,
    mode,
    page: served.page,
    size: served.size,
    total: served.total,
    total_pages: served.totalPages,
    items: served.items,
    links: bodyLinks(served.bodyLinks),
    ...(served.nextCursor !== undefined ? { next_cursor: served.nextCursor } : {}),
  });
  return { status: 200, contentType: 'application/json', headers, body };
}

/** Page-number links of a truthful page `page` of `last`. */
function numberedLinks(path: string, mode: string, page: number, size: number, last: number): Links {
  return {
    first: pageUrl(path, mode, 1, size),
    ...(page > 1 ? { prev: pageUrl(path, mode, Math.min(page - 1, last), size) } : {}),
    ...(page < last ? { next: pageUrl(path, mode, page + 1, size) } : {}),
    last: pageUrl(path, mode, last, size),
  };
}

/**
 * The control twin of both paths: the collection paged correctly. A page
 * number walk and a cursor walk each visit every item exactly once; a page
 * past the end is empty with first, prev and last links.
 */
export function correctPage(req: PageRequest<string>): PageAnswer {
  const size = req.cursor?.size ?? req.size;
  const offset = req.cursor?.offset ?? (req.page - 1) * req.size;
  const last = lastPage(COLLECTION_SIZE, size);
  const page = Math.floor(offset / size) + 1;
  const items = COLLECTION.slice(offset, offset + size);
  const hasNext = offset + size < COLLECTION_SIZE;
  const next = hasNext ? encodeCursor({ offset: offset + size, size }) : null;
  let links: Links;
  if (req.cursor) {
    links = {
      first: cursorUrl(req.path, req.mode, { offset: 0, size }),
      ...(offset > 0 ? { prev: cursorUrl(req.path, req.mode, { offset: Math.max(0, offset - size), size }) } : {}),
      ...(hasNext ? { next: cursorUrl(req.path, req.mode, { offset: offset + size, size }) } : {}),
      last: cursorUrl(req.path, req.mode, { offset: (last - 1) * size, size }),
    };
  } else {
    links = numberedLinks(req.path, req.mode, page, size, last);
  }
  return answer(req.path, req.mode, {
    items, page, size, total: COLLECTION_SIZE, totalPages: last, headerLinks: links, bodyLinks: links, nextCursor: next,
  });
}

/** A page of `size` items from `start`, with truthful-looking numbered links up to `last`. */
function sliced(path: string, mode: string, page: number, size: number, start: number, last: number): Served {
  const links = numberedLinks(path, mode, page, size, last);
  return {
    items: COLLECTION.slice(start, start + size),
    page,
    size,
    total: COLLECTION_SIZE,
    totalPages: last,
    headerLinks: links,
    bodyLinks: links,
  };
}

/** Where link-loop's loop closes: page 3, or the last page when there are fewer. */
export function loopPage(size: number): number {
  return Math.min(3, lastPage(COLLECTION_SIZE, size));
}

/** overlapping-pages: each page starts ⌊size/2⌋ items before the previous one ended. */
export function overlapStep(size: number): number {
  return size - Math.floor(size / 2);
}

/** size-drift: from page 2 on, pages hold twice the requested size (at most 100). */
export function driftSize(size: number): number {
  return Math.min(SIZE_MAX, size * 2);
}

/** expired-cursor's answer to any cursor: 410 Gone, as problem+json. */
const GONE_BODY = jsonBody({
  type: 'about:blank',
  title: 'Gone',
  status: 410,
  detail: 'the cursor has expired; start again from the first page',
});

/** The chaos /pagination: the twin's walk with the mode's one lie. */
export function chaosPage(req: PageRequest<PaginationMode>): PageAnswer {
  const { path, mode, page, size } = req;
  const truthfulLast = lastPage(COLLECTION_SIZE, size);
  switch (mode) {
    case 'lying-total': {
      // Claims 100 items; the pages past the real twenty are empty but linked.
      const last = Math.min(PAGE_MAX, lastPage(CLAIMED_TOTAL, size));
      return answer(path, mode, { ...sliced(path, mode, page, size, (page - 1) * size, last), total: CLAIMED_TOTAL });
    }
    case 'overlapping-pages': {
      const step = overlapStep(size);
      const last = COLLECTION_SIZE <= size ? 1 : Math.ceil((COLLECTION_SIZE - size) / step) + 1;
      return answer(path, mode, sliced(path, mode, page, size, (page - 1) * step, last));
    }
    case 'skipped-items': {
      // One item falls between every two pages; the total still says twenty.
      const step = size + 1;
      const last = lastPage(COLLECTION_SIZE, step);
      return answer(path, mode, sliced(path, mode, page, size, (page - 1) * step, last));
    }
    case 'size-drift': {
      // Page 1 honours size; later pages continue where it stopped with the
      // drifted size, while the links keep asking for the requested one.
      const drift = driftSize(size);
      const last = COLLECTION_SIZE <= size ? 1 : 1 + Math.ceil((COLLECTION_SIZE - size) / drift);
      const served = page === 1 ? sliced(path, mode, 1, size, 0, last) : sliced(path, mode, page, drift, size + (page - 2) * drift, last);
      const links = numberedLinks(path, mode, page, size, last);
      return answer(path, mode, { ...served, headerLinks: links, bodyLinks: links });
    }
    case 'link-loop': {
      const served = sliced(path, mode, page, size, (page - 1) * size, truthfulLast);
      if (page !== loopPage(size)) return answer(path, mode, served);
      const links = { ...served.headerLinks, next: pageUrl(path, mode, 1, size) };
      return answer(path, mode, { ...served, headerLinks: links, bodyLinks: links });
    }
    case 'dead-next': {
      // The next link names a path no route serves (a 404 on this host).
      const served = sliced(path, mode, page, size, (page - 1) * size, truthfulLast);
      if (served.headerLinks.next === undefined) return answer(path, mode, served);
      const links = { ...served.headerLinks, next: `${path}/page/${page + 1}?mode=${mode}&size=${size}` };
      return answer(path, mode, { ...served, headerLinks: links, bodyLinks: links });
    }
    case 'duplicate-ids': {
      // Each page after the first opens with an item carrying the id of the
      // previous page's last item (a different item under the same id).
      const start = (page - 1) * size;
      const served = sliced(path, mode, page, size, start, truthfulLast);
      const [head, ...rest] = served.items;
      const previous = COLLECTION[start - 1];
      if (page === 1 || head === undefined || previous === undefined) return answer(path, mode, served);
      return answer(path, mode, { ...served, items: [{ ...head, id: previous.id }, ...rest] });
    }
    case 'cursor-loop':
    case 'expired-cursor':
      return cursorPage(req, truthfulLast);
  }
}

/**
 * The cursor modes: links and next_cursor are cursors. cursor-loop's second
 * page (the first, when there is only one) gives its own cursor as next;
 * expired-cursor answers every cursor with 410 Gone.
 */
function cursorPage(req: PageRequest<PaginationMode>, truthfulLast: number): PageAnswer {
  const { path, mode } = req;
  if (mode === 'expired-cursor' && req.cursor) {
    return { status: 410, contentType: 'application/problem+json', headers: [], body: GONE_BODY };
  }
  const size = req.cursor?.size ?? req.size;
  const offset = req.cursor?.offset ?? (req.page - 1) * size;
  const last = lastPage(COLLECTION_SIZE, size);
  let next: Cursor | undefined = offset + size < COLLECTION_SIZE ? { offset: offset + size, size } : undefined;
  if (mode === 'cursor-loop') {
    const loopOffset = Math.min(1, truthfulLast - 1) * size;
    if (offset === loopOffset) next = { offset, size };
  }
  const links: Links = {
    first: cursorUrl(path, mode, { offset: 0, size }),
    ...(offset > 0 ? { prev: cursorUrl(path, mode, { offset: Math.max(0, offset - size), size }) } : {}),
    ...(next ? { next: cursorUrl(path, mode, next) } : {}),
    last: cursorUrl(path, mode, { offset: (last - 1) * size, size }),
  };
  return answer(path, mode, {
    items: COLLECTION.slice(offset, offset + size),
    page: Math.floor(offset / size) + 1,
    size,
    total: COLLECTION_SIZE,
    totalPages: last,
    headerLinks: links,
    bodyLinks: links,
    nextCursor: next ? encodeCursor(next) : null,
  });
}

/** The chaos /pagination-link: a truthful page whose Link header and body links disagree. */
export function disagreeingPage(req: PageRequest<PaginationLinkMode>): PageAnswer {
  const { path, mode } = req;
  // A cursor (from the twin) names a position; this page answers it with numbered links.
  const size = req.cursor?.size ?? req.size;
  const start = req.cursor?.offset ?? (req.page - 1) * size;
  const page = Math.floor(start / size) + 1;
  const last = lastPage(COLLECTION_SIZE, size);
  const truth = sliced(path, mode, page, size, start, last);
  const links = truth.headerLinks;
  let headerLinks = links;
  let body = links;
  switch (mode) {
    case 'next-differs':
      // The body's next skips a page (or, before the last page, points at this one).
      if (links.next !== undefined) body = { ...links, next: pageUrl(path, mode, page + 2 <= last ? page + 2 : page, size) };
      break;
    case 'missing-in-body':
      body = {};
      break;
    case 'missing-in-header':
      headerLinks = {};
      break;
    case 'swapped-rels': {
      // The header calls the next page prev and the previous page next.
      const { prev, next, ...ends } = links;
      headerLinks = { ...ends, ...(next !== undefined ? { prev: next } : {}), ...(prev !== undefined ? { next: prev } : {}) };
      break;
    }
  }
  return answer(path, mode, { ...truth, headerLinks, bodyLinks: body });
}
