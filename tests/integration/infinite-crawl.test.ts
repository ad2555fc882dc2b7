// A bounded breadth-first crawl of /infinite/html over the in-process control
// service: 1,000 pages, every link inside the namespace and answering 200,
// every page well-formed, and a sample refetched byte for byte.
import http from 'node:http';
import t from 'tap';
import { BODY_CAP, MAX_TAIL_CHARS, MAX_TAIL_SEGMENTS, segmentCount } from '../../services/control/infinite/index.js';
import { startHttp, testConfig } from '../helpers/servers.js';
import { anchorHrefs, INFINITE_HREF_RE, wellFormedProblems } from './infinite-wellformed.js';

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
    for (const href of hrefs) {
      links++;
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
