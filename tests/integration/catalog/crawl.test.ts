// Every link on every catalog page leads somewhere: the three hosts' pages
// and the hub are crawled (hrefs, the stylesheet and the script, each fetched
// with GET as a browser would) and no link may answer 404 or 405. What the
// target does on purpose is fine: any other status, a broken body, a reset or
// a close after the status line. A link to an endpoint that cuts the
// connection (it says so in the catalog: `cuts`) may give no status line at
// all; one that holds it must send its status line before a short timeout.
import t from 'tap';
import { serviceRegistries } from '../../../services/registries.js';
import type { Catalog } from '../../../shared/catalog/catalog.js';
import type { AnyEndpoint, Registry } from '../../../shared/registry/registry.js';
import type { HostName } from '../../../shared/config/config.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startAllHosts } from '../../helpers/servers.js';

/** How long a link may take to send its status line (the slowest example, /slow, waits 1 s). */
const STATUS_LINE_MS = 8000;
const PARALLEL = 6;

/** What one link answered: its status, or why it has none. */
type Reached = { readonly status: number } | { readonly none: 'fin' | 'reset' | 'timeout' | 'unparsable'; readonly first: string };

/** The status code of a response's first line (HTTP/1.1, HTTP/1.0, or a chaos-mangled version), if it has one. */
function statusOf(data: Buffer): number | undefined {
  const line = data.subarray(0, Math.max(0, data.indexOf('\n'))).toString('latin1');
  const m = /^HTTP\/[\d.]+ (\d{3})(?:[ \r]|$)/i.exec(line);
  return m ? Number(m[1]) : undefined;
}

/** GET one absolute loopback URL on a raw socket, stopping as soon as the status line is in. */
async function reach(url: URL): Promise<Reached> {
  const port = Number(url.port);
  const res = await rawExchange(port, get(url.pathname + url.search, { Host: url.host, Connection: 'close' }), {
    timeoutMs: STATUS_LINE_MS,
    until: (data) => data.includes('\n'),
  });
  const status = statusOf(res.data);
  if (status !== undefined) return { status };
  const first = res.data.subarray(0, 40).toString('latin1');
  if (res.end === 'stopped') return { none: 'unparsable', first };
  return { none: res.end === 'reset' ? 'reset' : res.end === 'timeout' ? 'timeout' : 'fin', first };
}

/** Every href and src of a page, resolved against it, without fragments; data: URLs left out. */
function linksOf(html: string, page: URL): string[] {
  const out = new Set<string>();
  for (const m of html.matchAll(/\b(?:href|src)="([^"]*)"/g)) {
    const raw = (m[1] as string).replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
    if (raw.startsWith('data:') || raw.startsWith('#')) continue;
    const url = new URL(raw, page);
    url.hash = '';
    out.add(url.href);
  }
  return [...out];
}

t.test('every link on every catalog page is served (no 404, no 405)', async (t) => {
  const hosts = await startAllHosts(t);
  const origins: Record<string, HostName> = {
    [`http://127.0.0.1:${hosts.chaos}`]: 'chaos',
    [`http://127.0.0.1:${hosts.control}`]: 'control',
    [`http://127.0.0.1:${hosts.bots}`]: 'bots',
  };
  const registries = serviceRegistries() as unknown as Record<HostName, Registry<unknown>>;
  /** The endpoint a link reaches, when it is one (not a page, an asset or the OpenAPI document). */
  const endpointOf = (url: URL): AnyEndpoint<unknown> | undefined => {
    const host = origins[url.origin];
    return host === undefined ? undefined : registries[host].match(url.pathname)?.endpoint;
  };

  const pages = [`http://127.0.0.1:${hosts.chaos}/`, `http://127.0.0.1:${hosts.control}/`, `http://127.0.0.1:${hosts.bots}/`, `${hosts.hub}/`];
  const links = new Map<string, string>();
  for (const page of pages) {
    const url = new URL(page);
    const res = parseHead((await rawExchange(Number(url.port), get('/', { Host: url.host }), { until: completeByLength })).data);
    t.equal(res.status, 200, `${page} answers`);
    const html = res.rest.toString('utf8');
    const found = linksOf(html, url);
    t.ok(found.length > 50, `${page}: ${found.length} links`);
    for (const link of found) if (!links.has(link)) links.set(link, page);

    // Every endpoint's GET example is a link on its host's page; no POST-only endpoint is one.
    const json = parseHead((await rawExchange(Number(url.port), get('/', { Host: url.host, Accept: 'application/json' }), { until: completeByLength })).data);
    const doc = JSON.parse(json.rest.toString()) as Catalog | { hosts: Catalog[] };
    for (const catalog of 'hosts' in doc ? doc.hosts : [doc]) {
      for (const e of catalog.categories.flatMap((g) => g.endpoints)) {
        if (e.example.method === 'GET') t.ok(found.includes(new URL(e.example.url).href), `${page} links ${catalog.host} ${e.path} by its example`);
        else t.notOk(found.some((l) => new URL(l).pathname === e.path && origins[new URL(l).origin] === catalog.host), `${page}: ${e.methods.join(',')} ${e.path} is no link`);
      }
    }
  }
  t.ok(links.size > 500, `${links.size} distinct links to follow`);

  const elsewhere = [...links.keys()].filter((link) => !/^(127\.0\.0\.1|(.+\.)?localhost)$/.test(new URL(link).hostname));
  t.same(elsewhere, [], 'every link stays on the loopback (the pages name our public URLs)');
  const queue = [...links.keys()];
  const failures: string[] = [];
  const silent: string[] = [];
  let reached = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let link = queue.shift(); link !== undefined; link = queue.shift()) {
        const url = new URL(link);
        const answer = await reach(url);
        if ('status' in answer) {
          if (answer.status === 404 || answer.status === 405) failures.push(`${link} (on ${links.get(link)}) answered ${answer.status}`);
          else reached++;
          continue;
        }
        // No status line: only an endpoint that cuts the connection on purpose may do that.
        const endpoint = endpointOf(url);
        if (endpoint?.cuts === undefined) failures.push(`${link}: no status line (${answer.none}: ${JSON.stringify(answer.first)})`);
        else silent.push(link);
      }
    }),
  );
  t.same(failures, [], 'every link is served');
  t.ok(reached > 500, `${reached} links answered with a status line; ${silent.length} cut the connection on purpose first`);
  t.ok(silent.some((l) => l.includes('/garbage')) && silent.some((l) => l.includes('/empty')), 'the cutting endpoints were among them');
});
