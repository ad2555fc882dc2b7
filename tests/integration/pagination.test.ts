// Pagination (issue 13): /pagination and /pagination-link on the chaos host,
// their twins on control. Every page is read on a raw socket; walks follow the
// `next` link of the Link header from page 1 and record what a client would
// see: the items, repeats, gaps, loops and dead links.
import t from 'tap';
import {
  CLAIMED_TOTAL,
  COLLECTION,
  PAGINATION_LINK_MODES,
  PAGINATION_MODES,
  encodeCursor,
  type Item,
} from '../../shared/content/pagination.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';
import { startChaos, startHttp } from '../helpers/servers.js';

interface Reply {
  readonly res: ParsedResponse;
  readonly body: Buffer;
}

interface PageBody {
  readonly endpoint: string;
  readonly mode: string;
  readonly page: number;
  readonly size: number;
  readonly total: number;
  readonly total_pages: number;
  readonly items: Item[];
  readonly links: Record<'first' | 'prev' | 'next' | 'last', string | null>;
  readonly next_cursor?: string | null;
}

async function call(port: number, path: string): Promise<Reply> {
  const result = await rawExchange(port, get(path), { until: completeByLength });
  if (result.end !== 'stopped') throw new Error(`GET ${path}: no complete response (${result.end})`);
  const res = parseHead(result.data);
  const length = Number(res.header('content-length') ?? 0);
  if (res.rest.length !== length) throw new Error(`${path}: ${res.rest.length} body bytes for Content-Length ${length}`);
  return { res, body: res.rest.subarray(0, length) };
}

function json(reply: Reply): PageBody {
  return JSON.parse(reply.body.toString('utf8')) as PageBody;
}

/** RFC 8288 Link header → rel → URI reference (every value we send is one quoted rel). */
function parseLink(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined) return out;
  for (const m of value.matchAll(/<([^>]*)>\s*;\s*rel="([^"]+)"\s*(?:,\s*|$)/g)) out[m[2] as string] = m[1] as string;
  if (Object.keys(out).length !== value.split(';').length - 1) throw new Error(`a Link value does not parse: ${value}`);
  return out;
}

/** The body's links without the nulls, to compare with the Link header. */
function nonNull(links: PageBody['links']): Record<string, string> {
  return Object.fromEntries(Object.entries(links).filter(([, v]) => v !== null)) as Record<string, string>;
}

interface Walk {
  readonly pages: PageBody[];
  readonly urls: string[];
  /** The URL a next link pointed to that had been visited already. */
  readonly loopedTo?: string;
  /** The status of a next link that did not answer 200. */
  readonly deadStatus?: number;
  readonly deadUrl?: string;
  readonly items: Item[];
}

/** Follows the Link header's next from `start`, stopping at the end, a repeat, a non-200 or 30 pages. */
async function walk(port: number, start: string): Promise<Walk> {
  const pages: PageBody[] = [];
  const urls: string[] = [];
  let url: string | undefined = start;
  while (url !== undefined && urls.length < 30) {
    if (urls.includes(url)) return { pages, urls, loopedTo: url, items: pages.flatMap((p) => p.items) };
    const reply = await call(port, url);
    if (reply.res.status !== 200) return { pages, urls, deadStatus: reply.res.status, deadUrl: url, items: pages.flatMap((p) => p.items) };
    urls.push(url);
    const page = json(reply);
    pages.push(page);
    url = parseLink(reply.res.header('link')).next;
  }
  return { pages, urls, items: pages.flatMap((p) => p.items) };
}

const ids = (items: readonly Item[]): string[] => items.map((i) => i.id);
const ALL_IDS = ids(COLLECTION);

t.test('the collection: twenty fixed items with distinct ids', async (t) => {
  t.equal(COLLECTION.length, 20);
  t.equal(new Set(ALL_IDS).size, 20);
  t.equal(ALL_IDS[0], 'item-01');
});

t.test('control twins: every walk by next link and by cursor visits each item exactly once; headers and body agree; every link resolves', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (const path of ['/pagination', '/pagination-link']) {
    const mode = path === '/pagination' ? 'lying-total' : 'next-differs';
    for (const size of [1, 3, 7, 10, 20, 100]) {
      const w = await walk(port, `${path}?mode=${mode}&size=${size}`);
      t.notOk(w.loopedTo, `${path} size ${size}: no loop`);
      t.notOk(w.deadStatus, `${path} size ${size}: no dead link`);
      t.same(ids(w.items), ALL_IDS, `${path} size ${size}: the walk visits every item once, in order`);
      t.same(w.items, COLLECTION, `${path} size ${size}: the items are the collection`);
      t.equal(w.pages.length, Math.ceil(20 / size), `${path} size ${size}: as many pages as total_pages says`);
      for (const p of w.pages) {
        t.equal(p.total, 20);
        t.equal(p.total_pages, Math.ceil(20 / size));
        t.equal(p.size, size);
      }
    }
    // Every link of every page of one walk: Link and body agree, each resolves with the rels it promises.
    const size = 3;
    for (let page = 1; page <= 8; page++) {
      const reply = await call(port, `${path}?mode=${mode}&page=${page}&size=${size}`);
      t.equal(reply.res.status, 200);
      t.equal(reply.res.header('x-total-count'), '20', 'X-Total-Count is the true count');
      t.equal(reply.res.header('x-chaos-origin'), 'control');
      const header = parseLink(reply.res.header('link'));
      const body = json(reply);
      t.same(header, nonNull(body.links), `${path} page ${page}: the Link header and the body's links are the same`);
      const expected = ['first', ...(page > 1 ? ['prev'] : []), ...(page < 7 ? ['next'] : []), 'last'];
      t.same(Object.keys(header), expected, `${path} page ${page}: rels ${expected.join(', ')}`);
      t.same(ids(body.items), ALL_IDS.slice((page - 1) * size, page * size), `${path} page ${page}: its items`);
      for (const [rel, target] of Object.entries(header)) {
        t.ok(target.startsWith(`${path}?mode=${mode}&`), `${rel}: same host (relative), same path, keeps the mode`);
        const followed = await call(port, target);
        t.equal(followed.res.status, 200, `${path} page ${page} ${rel} -> ${target} resolves`);
        const landed = json(followed).page;
        const want = { first: 1, prev: Math.min(page - 1, 7), next: page + 1, last: 7 }[rel];
        t.equal(landed, want, `${rel} lands on page ${want}`);
      }
    }
    // A cursor walk: next_cursor until null, every item once, cursors stable.
    const seen: string[] = [];
    const cursors: string[] = [];
    let target = `${path}?mode=${mode}&size=6`;
    for (let i = 0; i < 10; i++) {
      const reply = await call(port, target);
      const body = json(reply);
      seen.push(...ids(body.items));
      t.same(parseLink(reply.res.header('link')), nonNull(body.links), 'cursor pages: Link and body agree');
      for (const link of Object.values(nonNull(body.links))) t.equal((await call(port, link)).res.status, 200, `${link} resolves`);
      if (body.next_cursor === null || body.next_cursor === undefined) break;
      cursors.push(body.next_cursor);
      target = `${path}?mode=${mode}&size=6&cursor=${body.next_cursor}`;
      const next = parseLink(reply.res.header('link')).next ?? '';
      t.equal(next.endsWith(`&cursor=${body.next_cursor}`), i > 0, i === 0 ? 'page 1 of a numbered walk links by number' : 'a cursor page links next by cursor');
    }
    t.same(seen, ALL_IDS, `${path}: the cursor walk visits every item once`);
    t.same(cursors, [6, 12, 18].map((offset) => encodeCursor({ offset, size: 6 })), 'cursors are stable: one per position');
    const again = await call(port, `${path}?mode=${mode}&size=6&cursor=${cursors[0] as string}`);
    t.same(ids(json(again).items), ALL_IDS.slice(6, 12), 'a cursor used twice gives the same page');
    // Past the end: an empty page, no next.
    const past = await call(port, `${path}?page=20&size=10`);
    t.equal(past.res.status, 200);
    t.same(json(past).items, []);
    t.notOk(parseLink(past.res.header('link')).next, 'no next past the end');
  }
});

t.test('chaos /pagination: each mode tells exactly its lie', async (t) => {
  const { port } = await startChaos(t);
  const lies: Record<(typeof PAGINATION_MODES)[number], (t: Tap, w: Walk) => void | Promise<void>> = {
    'lying-total': (t, w) => {
      t.equal(w.pages.length, 10, 'claims 10 pages of 10');
      for (const p of w.pages) t.match(p, { total: CLAIMED_TOTAL, total_pages: 10 }, 'claims 100 items');
      t.same(w.pages.map((p) => p.items.length), [10, 10, 0, 0, 0, 0, 0, 0, 0, 0], 'pages past the real end are empty');
      t.same(ids(w.items), ALL_IDS, 'the real items, once each');
    },
    'overlapping-pages': (t, w) => {
      t.same(w.pages.map((p) => ids(p.items)), [ALL_IDS.slice(0, 10), ALL_IDS.slice(5, 15), ALL_IDS.slice(10, 20)], 'each page starts 5 items back');
      for (let i = 1; i < w.pages.length; i++) {
        const shared = ids((w.pages[i] as PageBody).items).filter((id) => ids((w.pages[i - 1] as PageBody).items).includes(id));
        t.equal(shared.length, 5, `pages ${i} and ${i + 1} share 5 items`);
      }
      t.same([...new Set(ids(w.items))], ALL_IDS, 'every item is seen, some twice');
    },
    'link-loop': (t, w) => {
      t.equal(w.loopedTo, '/pagination?mode=link-loop&page=1&size=10', 'the last page links next back to page 1');
      t.same(w.urls, ['/pagination?mode=link-loop&page=1&size=10', '/pagination?mode=link-loop&page=2&size=10'], 'page 1, page 2, then back');
    },
    'size-drift': (t, w) => {
      t.same(w.pages.map((p) => p.items.length), [10, 10], 'size 10 → pages of 10 then 20 (only 10 left)');
      t.same(w.pages.map((p) => p.size), [10, 20], 'the body reports the drifted size');
      t.same(ids(w.items), ALL_IDS, 'every item once');
    },
    'skipped-items': (t, w) => {
      t.same(ids(w.items), [...ALL_IDS.slice(0, 10), ...ALL_IDS.slice(11, 20)], 'item 11 falls between the pages');
      t.equal(w.pages[0]?.total, 20, 'the total still says 20');
    },
    'dead-next': (t, w) => {
      t.equal(w.deadStatus, 404, 'the next link 404s');
      t.equal(w.deadUrl, '/pagination/page/2?mode=dead-next&size=10');
      t.equal(w.pages.length, 1);
    },
    'cursor-loop': (t, w) => {
      const c10 = encodeCursor({ offset: 10, size: 10 });
      t.equal(w.loopedTo, `/pagination?mode=cursor-loop&size=10&cursor=${c10}`, 'page 2 gives its own cursor as next');
      t.equal(w.pages[1]?.next_cursor, c10);
    },
    'expired-cursor': (t, w) => {
      t.equal(w.pages.length, 1);
      t.equal(w.deadStatus, 410, 'the first cursor is already Gone');
    },
    'duplicate-ids': (t, w) => {
      t.equal(w.items.length, 20, 'twenty items');
      t.equal(new Set(w.items.map((i) => i.name)).size, 20, 'twenty different items');
      t.same(ids(w.items), [...ALL_IDS.slice(0, 10), 'item-10', ...ALL_IDS.slice(11, 20)], 'page 2 opens with the id of page 1\'s last item');
    },
  };
  for (const mode of PAGINATION_MODES) {
    const start = `/pagination?mode=${mode}&page=1&size=10`;
    const first = await call(port, start);
    t.equal(first.res.status, 200, `${mode}: page 1 answers 200`);
    t.equal(first.res.header('x-chaos-pagination-mode'), mode, `${mode}: X-Chaos-Pagination-Mode`);
    t.equal(first.res.header('x-chaos-category'), 'pagination');
    t.equal(first.res.header('content-type'), 'application/json');
    t.same(parseLink(first.res.header('link')), nonNull(json(first).links), `${mode}: Link header and body agree`);
    for (const link of Object.values(parseLink(first.res.header('link')))) {
      t.ok(link.startsWith('/pagination') && link.includes(`mode=${mode}&`), `${mode}: ${link} stays on the host and keeps the mode`);
    }
    const w = await walk(port, start);
    await t.test(mode, async (tt) => lies[mode](tt, w));
  }
});

type Tap = Pick<typeof t, 'equal' | 'same' | 'match' | 'ok' | 'notOk'>;

t.test('chaos /pagination with size 3: the lies as the walk gets longer', async (t) => {
  const { port } = await startChaos(t);
  const loop = await walk(port, '/pagination?mode=link-loop&page=1&size=3');
  t.same(loop.pages.map((p) => p.page), [1, 2, 3], 'three pages');
  t.equal(loop.loopedTo, '/pagination?mode=link-loop&page=1&size=3', 'page 3 links next to page 1');
  t.same(ids(loop.items), ALL_IDS.slice(0, 9), 'items 10–20 are never reached');

  const overlap = await walk(port, '/pagination?mode=overlapping-pages&size=3');
  t.same(overlap.pages.map((p) => ids(p.items)[0]), ALL_IDS.filter((_, i) => i % 2 === 0 && i <= 18), 'each page starts 2 on from the last');
  t.same([...new Set(ids(overlap.items))], ALL_IDS, 'every item is reached');

  const skipped = await walk(port, '/pagination?mode=skipped-items&size=3');
  t.same(ids(skipped.items), ALL_IDS.filter((_, i) => i % 4 !== 3), 'every fourth item falls between pages');
  t.equal(skipped.pages.length, 5);

  const drift = await walk(port, '/pagination?mode=size-drift&size=3');
  t.same(drift.pages.map((p) => p.items.length), [3, 6, 6, 5], 'page 1 has 3, the rest up to 6');
  t.ok(drift.urls.slice(1).every((u) => u.endsWith('&size=3')), 'the links keep asking for size 3');
  t.same(ids(drift.items), ALL_IDS, 'every item once');

  const dup = await walk(port, '/pagination?mode=duplicate-ids&size=5');
  t.equal(new Set(ids(dup.items)).size, 17, 'three ids repeat across four pages');
  t.equal(new Set(dup.items.map((i) => i.name)).size, 20, 'yet twenty different items');

  const lying = await walk(port, '/pagination?mode=lying-total&size=1');
  t.equal(lying.pages.length, 20, 'size 1: 100 claimed, the walk stops at page 20, the largest');
  t.same(ids(lying.items), ALL_IDS);

  const expired = await call(port, `/pagination?mode=expired-cursor&cursor=${encodeCursor({ offset: 0, size: 10 })}`);
  t.equal(expired.res.status, 410, 'any cursor: 410 Gone');
  t.equal(expired.res.header('content-type'), 'application/problem+json');
  t.match(JSON.parse(expired.body.toString('utf8')), { type: 'about:blank', title: 'Gone', status: 410 });
  t.equal(expired.res.header('x-chaos-pagination-mode'), 'expired-cursor');
  t.equal(expired.res.header('link'), undefined, 'no Link on the 410');
});

t.test('chaos /pagination-link: the Link header and the body disagree exactly as the mode says', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const url = (mode: string, page: number) => `/pagination-link?mode=${mode}&page=${page}&size=5`;
  for (const mode of PAGINATION_LINK_MODES) {
    const reply = await call(port, url(mode, 2));
    const twin = await call(controlPort, url(mode, 2));
    t.equal(reply.res.header('x-chaos-pagination-link-mode'), mode);
    const truth = parseLink(twin.res.header('link'));
    t.same(truth, nonNull(json(twin).links), `${mode}: the twin's two agree`);
    t.same(json(reply).items, json(twin).items, `${mode}: the items are the twin's`);
    const header = parseLink(reply.res.header('link'));
    const body = nonNull(json(reply).links);
    t.not(JSON.stringify(header), JSON.stringify(body), `${mode}: header and body differ`);
    switch (mode) {
      case 'next-differs':
        t.same(header, truth, 'the header is right');
        t.same(body, { ...truth, next: url(mode, 4) }, 'the body skips to page 4');
        break;
      case 'missing-in-body':
        t.same(header, truth);
        t.same(body, {}, 'the body has no links');
        break;
      case 'missing-in-header':
        t.equal(reply.res.header('link'), undefined, 'no Link header');
        t.same(body, truth);
        break;
      case 'swapped-rels':
        t.same(header, { ...truth, prev: truth.next, next: truth.prev }, 'prev and next swapped in the header');
        t.same(body, truth);
        break;
    }
  }
  const byCursor = await call(port, `/pagination-link?cursor=${encodeCursor({ offset: 5, size: 5 })}`);
  t.match(json(byCursor), { page: 2, size: 5 }, 'a cursor names the position');
  t.same(ids(json(byCursor).items), ALL_IDS.slice(5, 10));
  const numberedCursorMode = await call(port, '/pagination?mode=cursor-loop&page=2&size=10');
  t.equal(json(numberedCursorMode).next_cursor, encodeCursor({ offset: 10, size: 10 }), 'cursor-loop: page 2 by number loops too');
});

t.test('bad parameters: 400 on both hosts; out-of-range numbers clamped and reported', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  for (const p of [port, controlPort]) {
    for (const query of ['mode=bogus', 'page=abc', 'size=1.5', 'cursor=bogus', `cursor=${Buffer.from('pg1:999:10').toString('base64url')}`]) {
      for (const path of ['/pagination', '/pagination-link']) {
        const reply = await call(p, `${path}?${query}`);
        t.equal(reply.res.status, 400, `${path}?${query}: 400`);
        t.match(JSON.parse(reply.body.toString('utf8')), { error: 'invalid_parameter' });
      }
    }
    const clamped = await call(p, '/pagination?page=99&size=0');
    t.equal(clamped.res.status, 200);
    t.match(clamped.res.header('x-chaos-clamped'), /page=20/);
    t.match(clamped.res.header('x-chaos-clamped'), /size=1/);
    t.same(json(clamped).page, 20);
  }
});
