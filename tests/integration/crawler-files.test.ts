// The bots host (SPEC §1.6, §4.1 "Crawler chaos"), category crawler-files:
// robots.txt, sitemap.xml, ai.txt and llms.txt, each mode telling exactly its
// documented lie, on the wire; and the bots catalog as a whole. Then the
// control host's crawler, app-linking and federated files (SPEC §1.6, §4.2),
// all in the control catalog's crawler-files category: each one well-formed
// under its platform's strict rules, and every link in it resolving on the
// running hosts, whose public URLs are their real addresses here.
import t, { type Test } from 'tap';
import { adsRecords, isCalendarDate, nodeinfo20Problems, pngProblems, securityTxtProblems, xmlProblems } from '../helpers/documents.js';
import { type Checks, lines, mediaType, startBotsFiles } from '../helpers/bots-files.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';

// One pair of linked hosts (control and bots, at their real addresses) for both parts.

const { control, bots, C, B, follow, status, TWIN, catalog, endpoints, modeTests } = await startBotsFiles(t);

const urlsIn = (text: string): string[] => [...text.matchAll(/https?:\/\/[^\s"'<>)\]]+/g)].map((m) => (m[0] as string).replace(/&amp;/g, '&'));

/** Every endpoint → every mode → what its lie looks like on the wire, in catalog mode order. */
const CHECKS: Checks = {
  '/robots.txt': {
    'allow-disallow-same-path': (t, r) => {
      t.equal(r.res.header('content-type'), 'text/plain; charset=utf-8');
      t.same(lines(r.text), ['User-agent: *', 'Disallow: /private/', 'Allow: /private/'], 'the disallow first, so first-match parsers disagree with RFC 9309');
    },
    'contradicting-groups': (t, r) => {
      const groups = r.text.split('\n\n').map(lines);
      const gpt = groups.filter((g) => g[0] === 'User-agent: GPTBot');
      t.same(gpt, [['User-agent: GPTBot', 'Disallow: /'], ['User-agent: GPTBot', 'Allow: /']], 'two GPTBot groups, opposite rules');
    },
    bom: (t, r) => {
      t.same([...r.body.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'starts with the UTF-8 BOM');
      t.equal(r.body.subarray(3, 3 + 26).toString('latin1'), 'User-agent: *\nDisallow: /\n', 'then the group');
    },
    oversized: (t, r) => {
      const limit = 500 * 1024;
      t.ok(r.body.length > limit, `${r.body.length} bytes, past 500 KiB`);
      t.equal(r.body.indexOf('Disallow'), limit, 'the only Disallow starts at byte 512000');
      t.equal(r.body[limit - 1], 0x0a, 'the cut falls between lines');
      t.equal(r.body.subarray(limit).toString(), 'Disallow: /\n');
      t.same(lines(r.body.subarray(0, limit).toString()), ['User-agent: *', 'Allow: /'], 'within the limit: allow all');
    },
    'sitemap-loop': async (t, r) => {
      const sitemap = /^Sitemap: (.+)$/m.exec(r.text)?.[1] as string;
      t.equal(sitemap, `${B}/sitemap.xml?mode=self-index`);
      const index = await follow(sitemap);
      t.same([...index.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]), [sitemap], 'the sitemap lists only itself');
    },
    'wrong-content-type': (t, r) => {
      t.equal(r.res.header('content-type'), 'text/html; charset=utf-8');
      t.match(r.text, /^User-agent: \*$/m, 'a robots.txt body');
    },
    'html-fallback': (t, r) => {
      t.equal(r.res.status, 200);
      t.equal(mediaType(r), 'text/html');
      t.match(r.text, /^<!doctype html>/);
      t.notMatch(r.text, /User-agent/i);
    },
  },
  '/sitemap.xml': {
    'malformed-xml': (t, r) => {
      const problems = xmlProblems(r.text);
      t.ok(problems.some((p) => p.startsWith('bare &')), 'a bare &');
      t.ok(problems.some((p) => /closes|unclosed/.test(p)), 'an unclosed <url>');
    },
    'future-lastmod': async (t, r) => {
      t.same(xmlProblems(r.text), []);
      const lastmods = [...r.text.matchAll(/<lastmod>([^<]*)<\/lastmod>/g)].map((m) => m[1]);
      t.ok(lastmods.length > 5 && lastmods.every((d) => d === '2099-01-01'));
      for (const [, loc] of r.text.matchAll(/<loc>([^<]*)<\/loc>/g)) t.equal(await status(loc as string), 200, 'only the date lies');
    },
    'dead-urls': async (t, r) => {
      t.same(xmlProblems(r.text), []);
      const locs = [...r.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1] as string);
      t.ok(locs.length >= 3);
      for (const loc of locs) {
        t.ok(loc.startsWith(`${B}/`));
        t.equal(await status(loc), 404, `${loc} is dead`);
      }
    },
    'self-index': (t, r) => {
      t.same(xmlProblems(r.text), []);
      t.match(r.text, /<sitemapindex xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
      t.same([...r.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]), [`${B}/sitemap.xml?mode=self-index`]);
    },
    'wrong-namespace': (t, r) => {
      t.same(xmlProblems(r.text), []);
      t.match(r.text, /<urlset xmlns="https:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
    },
    'cross-host-urls': async (t, r) => {
      t.same(xmlProblems(r.text), []);
      const locs = [...r.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1] as string);
      t.ok(locs.length > 5);
      for (const loc of locs) {
        t.ok(loc.startsWith(`${C}/`), `${loc} is on the control host`);
        t.equal(await status(loc), 200, 'and resolves there');
      }
    },
  },
  '/.well-known/ai.txt': {
    contradictory: (t, r) => {
      t.match(r.text, /Every AI crawler is welcome/);
      const groups = r.text.split('\n\n').map(lines);
      for (const agent of ['GPTBot', 'ClaudeBot']) {
        t.same(groups.filter((g) => g[0] === `User-Agent: ${agent}`).map((g) => g[1]), ['Allow: /', 'Disallow: /'], `${agent}: allowed and disallowed`);
      }
    },
    'same-path': (t, r) => t.same(lines(r.text), ['User-Agent: *', 'Disallow: /docs/', 'Allow: /docs/']),
    'dead-links': async (t, r) => {
      const links = urlsIn(r.text).filter((u) => u !== B);
      t.equal(links.length, 2);
      for (const link of links) t.equal(await status(link), 404, `${link} is dead`);
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.match(r.text, /^User-Agent: \*$/m);
    },
  },
  '/llms.txt': {
    'dead-links': async (t, r) => {
      t.equal(r.res.header('content-type'), 'text/markdown; charset=utf-8');
      t.equal(r.text.split('\n').filter((l) => l.startsWith('# ')).length, 1, 'one H1');
      const links = [...r.text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1] as string);
      t.ok(links.length >= 2);
      for (const link of links) t.equal(await status(link), 404, `${link} is dead`);
    },
    'multiple-h1': (t, r) => t.equal(r.text.split('\n').filter((l) => l.startsWith('# ')).length, 2, 'two H1s'),
    'missing-h1': (t, r) => {
      t.equal(r.text.split('\n').filter((l) => l.startsWith('# ')).length, 0, 'no H1');
      t.match(r.text, /^## /);
    },
    contradictory: async (t, r) => {
      t.match(r.text, /^> No content of this site may be used by language models/m);
      t.match(r.text, /free to use for training/);
      for (const [, link] of r.text.matchAll(/\]\(([^)]+)\)/g)) t.equal(await status(link as string), 200, 'its links are live');
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.match(r.text, /^# /);
    },
  },
};

t.test('catalog: 18 endpoints in 4 categories on the bots host', async (t) => {
  t.equal(catalog.endpoint_count, 18);
  t.equal(catalog.category_count, 4);
  t.match(catalog.banner, /^18 endpoints in 4 categories on the bots host\./);
  t.same(
    catalog.categories.map((c) => [c.name, c.count]),
    [['crawler-files', 4], ['app-linking', 4], ['federated-identity', 5], ['site-trust', 5]],
  );
  for (const e of endpoints) t.equal(e.counterpart, C + (TWIN[e.path] ?? e.path), `${e.id}: the control twin`);
});

modeTests(t, 'crawler-files', CHECKS);

t.test('HEAD: the same head, no body', async (t) => {
  const result = await rawExchange(bots, get('/robots.txt?mode=oversized', {}, 'HEAD'), { until: (d) => d.includes('\r\n\r\n') });
  const res = parseHead(result.data);
  t.equal(res.status, 200);
  t.equal(res.header('content-length'), String(500 * 1024 + 'Disallow: /\n'.length));
  t.equal(res.header('x-chaos-mode'), 'oversized');
});

// ---------------------------------------------------------------- the control host files

const DAY_MS = 86_400_000;

async function rawGet(target: string): Promise<{ res: ParsedResponse; body: Buffer; text: string }> {
  const result = await rawExchange(control, get(target), { until: completeByLength });
  const res = parseHead(result.data);
  const body = res.rest.subarray(0, Number(res.header('content-length')));
  return { res, body, text: body.toString('utf8') };
}

async function getJson(target: string): Promise<unknown> {
  const { text } = await rawGet(target);
  return JSON.parse(text);
}

/** Answers 200 without a redirect, on this host. */
async function resolves(url: string): Promise<number> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.arrayBuffer();
  return response.status;
}

const FILES: readonly (readonly [path: string, type: string])[] = [
  ['/robots.txt', 'text/plain; charset=utf-8'],
  ['/sitemap.xml', 'application/xml; charset=utf-8'],
  ['/.well-known/ai.txt', 'text/plain; charset=utf-8'],
  ['/llms.txt', 'text/markdown; charset=utf-8'],
  ['/.well-known/apple-app-site-association', 'application/json'],
  ['/.well-known/assetlinks.json', 'application/json'],
  ['/manifest.webmanifest', 'application/manifest+json'],
  ['/icon.png?size=192', 'image/png'],
  ['/icon.png?size=512', 'image/png'],
  ['/.well-known/atproto-did', 'text/plain; charset=utf-8'],
  ['/.well-known/did.json', 'application/json'],
  ['/.well-known/nodeinfo', 'application/json'],
  ['/nodeinfo/2.0', 'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"'],
  ['/.well-known/security.txt', 'text/plain; charset=utf-8'],
  ['/security', 'text/html; charset=utf-8'],
  ['/ads.txt', 'text/plain; charset=utf-8'],
  ['/humans.txt', 'text/plain; charset=utf-8'],
  ['/.well-known/gpc.json', 'application/json'],
];

t.test('every control file: 200, its media type, X-Chaos-Origin control and the bots twin as counterpart', async (t) => {
  for (const [path, type] of FILES) {
    const { res, body } = await rawGet(path);
    t.equal(res.status, 200, `${path} status`);
    t.equal(res.header('content-type'), type, `${path} type`);
    t.equal(res.header('x-chaos-origin'), 'control', `${path} origin`);
    const twin = path === '/security' ? '/.well-known/security.txt' : path;
    t.equal(res.header('x-chaos-counterpart'), B + twin, `${path} counterpart`);
    t.ok(body.length > 0, `${path} has a body`);
    t.not(body[0], 0xef, `${path} starts without a BOM`);
  }
});

// A minimal robots.txt reader after RFC 9309: groups of user-agent lines and rules.
interface Group {
  readonly agents: string[];
  readonly rules: { allow: boolean; path: string }[];
}
function robotsGroups(text: string): { groups: Group[]; sitemaps: string[] } {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | undefined;
  let lastWasAgent = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!lastWasAgent || !current) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value);
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (key === 'sitemap') sitemaps.push(value);
    else if (key === 'allow' || key === 'disallow') current?.rules.push({ allow: key === 'allow', path: value });
    else throw new Error(`unknown robots line ${JSON.stringify(raw)}`);
  }
  return { groups, sitemaps };
}

const AI_AGENTS = ['GPTBot', 'ClaudeBot', 'Google-Extended', 'PerplexityBot', 'CCBot', 'Applebot-Extended', 'Meta-ExternalAgent'];

function checkPolicy(t: Test, name: string, text: string): Group[] {
  const { groups } = robotsGroups(text);
  const seen = new Map<string, number>();
  for (const group of groups) {
    for (const agent of group.agents) seen.set(agent.toLowerCase(), (seen.get(agent.toLowerCase()) ?? 0) + 1);
    const allowed = new Set(group.rules.filter((r) => r.allow).map((r) => r.path));
    for (const rule of group.rules) if (!rule.allow) t.notOk(allowed.has(rule.path), `${name}: ${rule.path} is not both allowed and disallowed`);
    t.same(group.rules, [{ allow: true, path: '/' }, { allow: false, path: '/infinite/' }], `${name}: ${group.agents.join(', ')} may fetch everything but /infinite/`);
  }
  for (const [agent, count] of seen) t.equal(count, 1, `${name}: ${agent} has exactly one group`);
  for (const agent of [...AI_AGENTS, '*']) t.ok(seen.has(agent.toLowerCase()), `${name}: ${agent} is named`);
  return groups;
}

t.test('robots.txt: allow-all, the AI crawlers allowed by name, /infinite/ disallowed, a Sitemap line', async (t) => {
  const { text } = await rawGet('/robots.txt');
  checkPolicy(t, 'robots.txt', text);
  t.same(robotsGroups(text).sitemaps, [`${C}/sitemap.xml`]);
  t.ok(text.endsWith('\n'));
});

t.test('ai.txt: the same policy, nothing contradicts', async (t) => {
  const { text } = await rawGet('/.well-known/ai.txt');
  checkPolicy(t, 'ai.txt', text);
  t.match(text, /^User-Agent: GPTBot$/m, 'robots syntax, agents by name');
});

t.test('security.txt: a future Expires under a year, a resolving Contact, Canonical equal to the served URL', async (t) => {
  const { text } = await rawGet('/.well-known/security.txt');
  t.notMatch(text, /BEGIN PGP/, 'does not claim a signature');
  t.same(securityTxtProblems(text, `${C}/.well-known/security.txt`), [], 'valid');
  const fields = text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()] as const);
  const values = (name: string) => fields.filter(([k]) => k === name).map(([, v]) => v);
  t.same(new Set(fields.map(([k]) => k)), new Set(['contact', 'expires', 'preferred-languages', 'canonical']), 'known fields only');
  t.equal(values('expires').length, 1, 'exactly one Expires');
  const expires = Date.parse(values('expires')[0] as string);
  t.match(values('expires')[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'RFC 3339');
  t.ok(expires > Date.now(), 'Expires is in the future');
  t.ok(expires < Date.now() + 365 * DAY_MS, 'Expires is less than a year ahead');
  t.same(values('canonical'), [`${C}/.well-known/security.txt`]);
  const contacts = values('contact');
  t.ok(contacts.length >= 1);
  for (const contact of contacts) {
    t.ok(contact.startsWith(`${C}/`), 'Contact is on this host');
    t.equal(await resolves(contact), 200, `${contact} answers 200`);
  }
  const page = await rawGet('/security');
  t.match(page.text, /security\.txt/);
});

t.test('ads.txt: exactly one authorised-seller record, DIRECT', async (t) => {
  const { text } = await rawGet('/ads.txt');
  t.same(adsRecords(text), { valid: [{ domain: 'example.com', account: 'chaos-control-0001', relationship: 'DIRECT' }], malformed: [] });
  const records = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  t.equal(records.length, 1, 'one record');
  const fields = (records[0] as string).split(',').map((f) => f.trim());
  t.ok(fields.length === 3 || fields.length === 4, 'three or four fields');
  t.match(fields[0], /^[a-z0-9-]+(\.[a-z0-9-]+)+$/, 'an ad system domain');
  t.ok((fields[1] as string).length > 0, 'a seller account');
  t.equal(fields[2], 'DIRECT');
});

t.test('humans.txt: TEAM and SITE, no recursion, real dates', async (t) => {
  const { text } = await rawGet('/humans.txt');
  t.match(text, /^\/\* TEAM \*\/$/m);
  t.match(text, /^\/\* SITE \*\/$/m);
  t.notMatch(text, /humans\.txt/i, 'no field refers to humans.txt');
  const dates = [...text.matchAll(/(\d{4})\/(\d{2})\/(\d{2})/g)];
  t.ok(dates.length >= 1, 'dated');
  for (const [date, y, m, d] of dates) {
    t.ok(isCalendarDate(Number(y), Number(m), Number(d)), `${date} exists`);
    t.ok(Date.UTC(Number(y), Number(m) - 1, Number(d)) <= Date.now(), `${date} is not in the future`);
  }
  const update = /^Last update: (\d{4})\/(\d{2})\/(\d{2})$/m.exec(text);
  t.ok(update, 'Last update');
  if (update) t.ok(Date.now() - Date.UTC(Number(update[1]), Number(update[2]) - 1, Number(update[3])) < 2 * DAY_MS, 'recent');
  for (const [, url] of text.matchAll(/(https?:\/\/\S+)/g)) t.equal(await resolves(url as string), 200, `${url} resolves`);
});

t.test('llms.txt: one H1 first, a short description, links that all resolve', async (t) => {
  const { text } = await rawGet('/llms.txt');
  const lines = text.split('\n');
  t.match(lines[0], /^# \S/, 'opens with the H1');
  t.equal(lines.filter((line) => /^# /.test(line)).length, 1, 'exactly one H1');
  const quote = lines.find((line) => line.startsWith('> '));
  t.ok(quote && quote.length < 300, 'a short blockquote description');
  t.ok(lines.indexOf(quote as string) < lines.findIndex((line) => line.startsWith('## ')), 'description before the sections');
  const links = [...text.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((m) => m[1] as string);
  t.ok(links.length >= 5);
  for (const link of links) t.equal(await resolves(link), 200, `${link} resolves`);
});

t.test('sitemap.xml: valid XML, the 0.9 namespace, recent lastmod, resolving URLs of this host, none disallowed', async (t) => {
  const { text } = await rawGet('/sitemap.xml');
  t.same(xmlProblems(text), [], 'well-formed');
  t.match(text, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
  const locs = [...text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1] as string);
  const lastmods = [...text.matchAll(/<lastmod>([^<]*)<\/lastmod>/g)].map((m) => m[1] as string);
  t.ok(locs.length >= 10, 'lists the files');
  t.equal(lastmods.length, locs.length, 'a lastmod per URL');
  for (const lastmod of lastmods) {
    t.match(lastmod, /^\d{4}-\d\d-\d\d$/);
    const at = Date.parse(`${lastmod}T00:00:00Z`);
    t.ok(at <= Date.now() && Date.now() - at < 2 * DAY_MS, `${lastmod} is recent and not in the future`);
  }
  for (const path of ['/.well-known/security.txt', '/.well-known/nodeinfo', '/.well-known/atproto-did', '/.well-known/ai.txt']) {
    t.ok(locs.includes(C + path), `lists ${path}`);
  }
  for (const loc of locs) {
    t.ok(loc.startsWith(`${C}/`), `${loc} is on this host`);
    t.notOk(new URL(loc).pathname.startsWith('/infinite/'), 'not disallowed by robots.txt');
    t.equal(await resolves(loc), 200, `${loc} resolves`);
  }
});

t.test('atproto-did and did.json: one line, the did:web of this host, confirmed both ways', async (t) => {
  const { body, text } = await rawGet('/.well-known/atproto-did');
  const expected = `did:web:${encodeURIComponent(new URL(C).host)}`;
  t.equal(text, expected, 'exactly the DID, no whitespace');
  t.notOk(body.includes(0x0a) || body.includes(0x0d), 'a single line');
  const doc = (await getJson('/.well-known/did.json')) as Record<string, unknown>;
  t.equal(doc.id, expected, 'the DID document is the DID');
  t.same(doc['@context'], ['https://www.w3.org/ns/did/v1']);
  t.same(doc.alsoKnownAs, [`at://${new URL(C).hostname}`], 'and names this host as its handle');
});

t.test('nodeinfo: the 2.0 rel, an href on this host, and a schema-valid 2.0 document behind it', async (t) => {
  const discovery = (await getJson('/.well-known/nodeinfo')) as { links: { rel: string; href: string }[] };
  t.ok(Array.isArray(discovery.links));
  t.same(discovery.links, [{ rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: `${C}/nodeinfo/2.0` }]);
  const response = await fetch(discovery.links[0]?.href as string, { redirect: 'manual' });
  t.equal(response.status, 200);
  const doc = await response.json();
  t.same(nodeinfo20Problems(doc), [], 'schema-valid');
  t.equal((doc as { software: { name: string } }).software.name, 'chaos-endpoint-service');
  t.same(nodeinfo20Problems({ ...(doc as object), version: '2.1' }), ['version must be 2.0'], 'the checker can fail');
});

t.test('apple-app-site-association: strict format, no redirect, application/json', async (t) => {
  const { res, body } = await rawGet('/.well-known/apple-app-site-association');
  t.equal(res.status, 200, 'no redirect');
  t.equal(res.header('content-type'), 'application/json');
  t.ok(body.length < 128 * 1024, 'under 128 KB');
  const doc = JSON.parse(body.toString()) as Record<string, any>;
  t.same(Object.keys(doc).sort(), ['applinks', 'webcredentials']);
  const appId = /^[A-Z0-9]{10}\.[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
  t.same(Object.keys(doc.applinks), ['details'], 'modern format: details only');
  t.ok(Array.isArray(doc.applinks.details) && doc.applinks.details.length > 0);
  for (const detail of doc.applinks.details) {
    t.same(Object.keys(detail).sort(), ['appIDs', 'components']);
    t.ok(detail.appIDs.length > 0 && detail.appIDs.every((id: string) => appId.test(id)), 'team ID + bundle ID');
    for (const component of detail.components) {
      t.type(component['/'], 'string');
      t.ok((component['/'] as string).startsWith('/'));
    }
  }
  t.ok(doc.webcredentials.apps.every((id: string) => appId.test(id)));
});

t.test('assetlinks.json: handle_all_urls for an android_app with a 32-byte SHA-256 fingerprint', async (t) => {
  const doc = (await getJson('/.well-known/assetlinks.json')) as any[];
  t.ok(Array.isArray(doc) && doc.length === 1, 'a statement list');
  const [statement] = doc;
  t.same(statement.relation, ['delegate_permission/common.handle_all_urls']);
  t.equal(statement.target.namespace, 'android_app');
  t.match(statement.target.package_name, /^[a-zA-Z]\w*(\.[a-zA-Z]\w*)+$/);
  t.equal(statement.target.sha256_cert_fingerprints.length, 1);
  t.match(statement.target.sha256_cert_fingerprints[0], /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/, '32 colon-separated hex bytes');
});

t.test('manifest.webmanifest: installable, start_url inside scope, icons that resolve to PNGs of the declared size', async (t) => {
  const { res, text } = await rawGet('/manifest.webmanifest');
  t.equal(res.header('content-type'), 'application/manifest+json');
  const m = JSON.parse(text) as Record<string, any>;
  t.ok(m.name && m.short_name, 'named');
  t.equal(m.display, 'standalone');
  const manifestUrl = `${C}/manifest.webmanifest`;
  const start = new URL(m.start_url, manifestUrl);
  const scope = new URL(m.scope, manifestUrl);
  t.equal(start.origin, new URL(manifestUrl).origin, 'start_url same-origin');
  t.ok(start.href.startsWith(scope.href), 'start_url within scope');
  t.equal(await resolves(start.href), 200, 'start_url resolves');
  const sizes = m.icons.map((icon: { sizes: string }) => icon.sizes);
  t.ok(sizes.includes('192x192') && sizes.includes('512x512'), '192 and 512 px icons');
  for (const icon of m.icons) {
    const url = new URL(icon.src, manifestUrl);
    t.equal(url.origin, new URL(C).origin);
    const r = await fetch(url, { redirect: 'manual' });
    t.equal(r.status, 200, `${icon.src} resolves`);
    t.equal(r.headers.get('content-type'), icon.type);
    const { problems, width, height } = pngProblems(Buffer.from(await r.arrayBuffer()));
    t.same(problems, [], 'a valid PNG');
    t.equal(`${width}x${height}`, icon.sizes, 'of the declared size');
  }
});

t.test('gpc.json: a boolean gpc and a real, past lastUpdate', async (t) => {
  const doc = (await getJson('/.well-known/gpc.json')) as Record<string, unknown>;
  t.equal(doc.gpc, true);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(doc.lastUpdate as string);
  t.ok(m && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])));
  t.ok(Date.parse(`${doc.lastUpdate as string}T00:00:00Z`) <= Date.now());
});

t.test('webfinger: a JRD for the host account, 404 for others, 400 without resource', async (t) => {
  const account = `acct:control@${new URL(C).hostname}`;
  const { res, text } = await rawGet(`/.well-known/webfinger?resource=${encodeURIComponent(account)}`);
  t.equal(res.status, 200);
  t.equal(res.header('content-type'), 'application/jrd+json');
  t.equal(res.header('access-control-allow-origin'), '*');
  const jrd = JSON.parse(text) as { subject: string; links: { rel: string; href: string }[] };
  t.equal(jrd.subject, account);
  for (const link of jrd.links) t.equal(await resolves(link.href), 200, `${link.href} resolves`);
  const filtered = (await getJson(`/.well-known/webfinger?resource=${encodeURIComponent(account)}&rel=${encodeURIComponent('http://nodeinfo.diaspora.software/ns/schema/2.0')}`)) as typeof jrd;
  t.same(filtered.links.map((l) => l.rel), ['http://nodeinfo.diaspora.software/ns/schema/2.0'], 'rel filters links');
  const unknown = await rawGet(`/.well-known/webfinger?resource=${encodeURIComponent('acct:nobody@example.com')}`);
  t.equal(unknown.res.status, 404);
  const missing = await rawGet('/.well-known/webfinger');
  t.equal(missing.res.status, 400);
  t.equal(JSON.parse(missing.text).param, 'resource');
  t.notOk(missing.res.headerLines.some(([name]) => /^x-chaos-/i.test(name)), 'a real error carries no X-Chaos-*');
});

t.test('bad input: an icon size that does not exist is a 400, not chaos', async (t) => {
  const { res, text } = await rawGet('/icon.png?size=100');
  t.equal(res.status, 400);
  const error = JSON.parse(text);
  t.equal(error.param, 'size');
  t.same(error.accepted, ['192', '512']);
  t.notOk(res.headerLines.some(([name]) => /^x-chaos-/i.test(name)));
});

/** URIs that name things rather than link to them (namespaces, relation types, JSON-LD contexts). */
const IDENTIFIERS = new Set([
  'http://www.sitemaps.org/schemas/sitemap/0.9',
  'http://nodeinfo.diaspora.software/ns/schema/2.0',
  'http://nodeinfo.diaspora.software/ns/schema/2.0#',
  'https://www.w3.org/ns/did/v1',
  'http://webfinger.net/rel/profile-page',
]);

t.test('every link in every control file is on this host and answers 200', async (t) => {
  const account = encodeURIComponent(`acct:control@${new URL(C).hostname}`);
  const sources = [...FILES.map(([path]) => path).filter((path) => !path.startsWith('/icon.png')), `/.well-known/webfinger?resource=${account}`];
  const links = new Set<string>();
  for (const source of sources) {
    const { text } = await rawGet(source);
    for (const [url] of text.matchAll(/https?:\/\/[^\s"'<>)\]]+/g)) {
      if (!IDENTIFIERS.has(url)) links.add(url.replace(/&amp;/g, '&'));
    }
  }
  t.ok(links.size >= 15, `${links.size} distinct links`);
  for (const link of links) {
    t.ok(link === C || link.startsWith(`${C}/`), `${link} is on the control host`);
    t.equal(await resolves(link), 200, `${link} answers 200`);
  }
});

t.test('the control catalog lists the files in crawler-files with their bots twins', async (t) => {
  const catalog = (await fetch(`${C}/`, { headers: { accept: 'application/json' } }).then((r) => r.json())) as {
    categories: { name: string; endpoints: { id: string; path: string; counterpart: string }[] }[];
  };
  const files = catalog.categories.find((c) => c.name === 'crawler-files');
  t.ok(files);
  t.equal(files?.endpoints.length, 18);
  for (const e of files?.endpoints ?? []) {
    t.equal(e.counterpart, B + (e.id === 'security-contact' ? '/.well-known/security.txt' : e.path), `${e.id} twin`);
  }
});
