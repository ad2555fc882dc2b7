// A bounded breadth-first crawl of /infinite/html over the in-process control
// service: 1,000 pages, every link inside the namespace (as a browser resolves
// it) and answering 200, every page well-formed, and a sample refetched byte
// for byte. Then tails that would make a browser resolve links elsewhere
// (dot segments, backslash…) are refused, a fragment is dropped as a browser
// drops it, and odd but safe ones link only inside the namespace.
import http from 'node:http';
import t from 'tap';
import { BODY_CAP, MAX_TAIL_CHARS, MAX_TAIL_SEGMENTS, segmentCount } from '../../../services/control/infinite/index.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startHttp, testConfig } from '../../helpers/servers.js';
import { anchorHrefs, canonicalHref, INFINITE_HREF_RE, wellFormedProblems } from '../../helpers/infinite-wellformed.js';

const ORIGIN = 'http://control.test';

/**
 * Why `href` on the page at `path` is not a plain link inside the namespace,
 * as a browser sees it: resolved against the page URL, it must stay under
 * /infinite/html/ and be exactly itself (no dot segment removed, no `#` or
 * `?` split off, no character rewritten).
 */
function linkProblem(path: string, href: string): string | undefined {
  const resolved = new URL(href, new URL(path, ORIGIN));
  if (resolved.origin !== ORIGIN) return `${href} leaves the host (${resolved.href})`;
  if (!resolved.pathname.startsWith('/infinite/html/')) return `${href} resolves to ${resolved.pathname}, outside /infinite/html/`;
  if (resolved.pathname !== href || resolved.search !== '' || resolved.hash !== '') return `${href} resolves to ${resolved.pathname}${resolved.search}${resolved.hash}`;
  return undefined;
}

const PAGES = 1000;
/** Discovered links not crawled: this many are fetched too, so links of the last layer are checked as well. */
const FRONTIER_SAMPLE = 200;

interface Page {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

function fetchPage(agent: http.Agent, port: number, path: string): Promise<Page> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(5000, () => req.destroy(new Error(`timeout on ${path}`)));
    req.on('error', reject);
  });
}

t.test('crawl 1,000 pages breadth-first', async (t) => {
  const { port } = await startHttp(t, 'control', testConfig({ RATE_LIMIT_INFINITE: '0' }));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  t.teardown(() => agent.destroy());

  const seeds = ['/infinite/html/users/crawl', '/infinite/html/products/crawl', '/infinite/html/posts/crawl', '/infinite/html/comments/crawl'];
  const queue = [...seeds];
  const queued = new Set(seeds);
  const seen = new Map<string, Buffer>();
  const problems: string[] = [];
  const types = new Map<string, number>();
  let links = 0;

  while (queue.length > 0 && seen.size < PAGES && problems.length < 20) {
    const path = queue.shift() as string;
    const page = await fetchPage(agent, port, path);
    seen.set(path, page.body);
    if (page.status !== 200) {
      problems.push(`${path}: ${page.status}`);
      continue;
    }
    const html = page.body.toString();
    if (page.headers['content-type'] !== 'text/html; charset=utf-8') problems.push(`${path}: content-type ${page.headers['content-type']}`);
    if (page.headers['x-robots-tag'] !== 'noindex, nofollow') problems.push(`${path}: no X-Robots-Tag`);
    if (page.body.length > BODY_CAP) problems.push(`${path}: ${page.body.length} bytes`);
    for (const p of wellFormedProblems(html)) problems.push(`${path}: ${p}`);
    const type = (INFINITE_HREF_RE.exec(path) as RegExpExecArray)[1] as string;
    types.set(type, (types.get(type) ?? 0) + 1);
    const hrefs = anchorHrefs(html);
    if (hrefs.length !== 10) problems.push(`${path}: ${hrefs.length} links`);
    const canonical = canonicalHref(html);
    if (canonical !== path) problems.push(`${path}: canonical ${canonical}`);
    for (const href of hrefs) {
      links++;
      const off = linkProblem(path, href);
      if (off) problems.push(`${path}: link ${off}`);
      const m = INFINITE_HREF_RE.exec(href);
      if (!m) {
        problems.push(`${path}: link ${href} leaves the namespace`);
        continue;
      }
      const tail = m[2] as string;
      if (tail.length > MAX_TAIL_CHARS || segmentCount(tail) > MAX_TAIL_SEGMENTS) problems.push(`${path}: link ${href} exceeds the bounds`);
      if (!queued.has(href)) {
        queued.add(href);
        queue.push(href);
      }
    }
  }
  t.same(problems, [], 'no problem on any page');
  t.equal(seen.size, PAGES, `${PAGES} distinct pages crawled`);
  t.equal(links, PAGES * 10, 'ten links on every page');
  // Products are reached from products only (the spec's link table), so fewer of them.
  for (const type of ['users', 'products', 'posts', 'comments']) t.ok((types.get(type) ?? 0) > 20, `${type}: ${types.get(type)} pages`);

  // Links found on the last pages were not crawled: fetch a sample of them.
  const frontier = queue.slice(0, FRONTIER_SAMPLE);
  t.equal(frontier.length, FRONTIER_SAMPLE, 'the crawl is bounded, not exhausted');
  const unresolved: string[] = [];
  for (const path of frontier) {
    const page = await fetchPage(agent, port, path);
    if (page.status !== 200) unresolved.push(`${path}: ${page.status}`);
  }
  t.same(unresolved, [], 'links of the last layer resolve too');

  // Stable: every 20th page, fetched again, is byte for byte the same.
  const changed: string[] = [];
  let refetched = 0;
  for (const [path, body] of [...seen].filter((_, i) => i % 20 === 0)) {
    refetched++;
    const again = await fetchPage(agent, port, path);
    if (!again.body.equals(body)) changed.push(path);
  }
  t.equal(refetched, PAGES / 20, 'a sample of 50 refetched');
  t.same(changed, [], 'refetched pages are identical');
});

async function rawGet(port: number, target: string) {
  const r = await rawExchange(port, get(target), { until: completeByLength });
  const head = parseHead(r.data);
  return { head, body: head.rest.subarray(0, Number(head.header('content-length') ?? 0)).toString() };
}

t.test('the linkProblem check itself: it catches links a browser resolves elsewhere', async (t) => {
  const page = '/infinite/html/users/x';
  t.equal(linkProblem(page, '/infinite/html/posts/x/1'), undefined);
  t.match(linkProblem(page, '/infinite/html/posts/../../../../x/18'), /resolves to \/x\/18, outside/);
  t.match(linkProblem(page, '/infinite/html/posts/a#b/5'), /resolves to \/infinite\/html\/posts\/a#b\/5/);
  t.match(linkProblem(page, '/infinite/html/posts/a/%2e%2E/b'), /resolves to \/infinite\/html\/posts\/b/);
  t.match(linkProblem(page, '/infinite/html/posts/a\\b'), /resolves to/);
  t.match(linkProblem(page, '/infinite/html/posts/a b'), /resolves to/);
  t.match(linkProblem(page, '//evil.test/infinite/html/posts/a'), /leaves the host/);
});

// Raw request targets (what `curl --path-as-is` sends), each a 400 in both formats.
const HOSTILE: readonly string[] = [
  '../../../../x', '..', '.', 'a/..', 'a/.', 'a/./b', 'a/../b', 'a/../../../..', '%2e%2e/x', '%2E%2E/x', '.%2e/x', '%2e./x',
  'a/%2e', 'a/%2E/b', 'a\\b', '..\\..\\x', 'a"b', 'a<b', 'a>b', 'a`b', 'a{b}', 'a|b', 'a^b', 'a[0]',
];

t.test('tails a browser would resolve or rewrite: a 400, never a page', async (t) => {
  const { port } = await startHttp(t, 'control', testConfig({ RATE_LIMIT_INFINITE: '0' }));
  for (const tail of HOSTILE) {
    for (const format of ['html', 'json']) {
      const { head, body } = await rawGet(port, `/infinite/${format}/users/${tail}`);
      const label = `${format} ${JSON.stringify(tail)}`;
      t.equal(head.status, 400, label);
      t.equal(head.header('content-type'), 'application/json', label);
      t.equal(head.header('x-robots-tag'), 'noindex, nofollow', `${label}: crawlers stay out`);
      t.same(head.headerLines.filter(([n]) => /^x-chaos-/i.test(n)), [], `${label}: a real error, no X-Chaos-*`);
      const error = JSON.parse(body) as Record<string, unknown>;
      t.same(Object.keys(error), ['endpoint', 'error', 'requested', 'reason', 'param', 'accepted'], label);
      t.equal(error.error, 'invalid_parameter');
      t.equal(error.param, 'path');
      t.equal(error.requested, tail, `${label}: echoes the tail as sent`);
    }
  }
  const dot = JSON.parse((await rawGet(port, '/infinite/html/users/../../x')).body) as { reason: string };
  t.match(dot.reason, /dot segment "\.\."/);
});

t.test('a fragment is dropped, as a browser drops it: the page of the tail before it', async (t) => {
  const { port } = await startHttp(t, 'control', testConfig({ RATE_LIMIT_INFINITE: '0' }));
  for (const [sent, served] of [['a#b', 'a'], ['a/b#c/d', 'a/b']] as const) {
    for (const format of ['html', 'json']) {
      const withFragment = await rawGet(port, `/infinite/${format}/users/${sent}`);
      const plain = await rawGet(port, `/infinite/${format}/users/${served}`);
      t.equal(withFragment.head.status, 200, `${format} ${sent}`);
      t.equal(withFragment.body, plain.body, `${format} ${sent}: the same bytes as ${served}`);
    }
  }
});

// Safe tails that look odd: each page answers 200 and every link (and the
// canonical) is a plain path inside the namespace that itself answers 200.
const ODD: readonly string[] = [
  '..a', 'a..', '...', 'a/.../b', '%2e%2e%2fx', 'a%2e%2e', '.%2e.', 'a;b=c', 'a:b', '@me', 'a%23b', 'a%3Fb', 'a%5Cb', 'a//b', 'a/',
  '~x', "a'b", 'a&b', '(x)!*$,+', 'a%20b', '%C3%A9t%C3%A9',
];

t.test('odd but safe tails: 200, every link resolves to itself under /infinite/html/', async (t) => {
  const { port } = await startHttp(t, 'control', testConfig({ RATE_LIMIT_INFINITE: '0' }));
  const problems: string[] = [];
  let checked = 0;
  for (const tail of ODD) {
    for (const type of ['users', 'products', 'posts', 'comments']) {
      const path = `/infinite/html/${type}/${tail}`;
      const { head, body } = await rawGet(port, path);
      if (head.status !== 200) {
        problems.push(`${path}: ${head.status}`);
        continue;
      }
      const canonical = canonicalHref(body);
      if (canonical !== path) problems.push(`${path}: canonical ${canonical}`);
      for (const href of anchorHrefs(body)) {
        checked++;
        const off = linkProblem(path, href);
        if (off) problems.push(`${path}: ${off}`);
        const status = (await rawGet(port, href)).head.status;
        if (status !== 200) problems.push(`${path}: ${href} answers ${status}`);
      }
    }
  }
  t.same(problems, []);
  t.equal(checked, ODD.length * 4 * 10, 'ten links on every page');
});
