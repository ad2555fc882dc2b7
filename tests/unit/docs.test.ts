// The docs/ pages against the registries: every endpoint is documented on
// exactly one page, the one docFileOf names; no page documents a path no
// registry serves; every relative link and #anchor resolves; every page is
// linked from the README; URL placeholders are defined before they are used.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import t from 'tap';
import { loadConfig, type HostName } from '../../shared/config/config.js';
import { CATEGORY_DOCS } from '../../shared/registry/categories.js';
import { CATEGORIES } from '../../shared/registry/registry.js';
import {
  docFileOf, documentedPaths, endpointsNamed, handWritten, registries, repoPath, twinOf,
} from '../../scripts/readme-tables.js';

const all = registries();
const docPages = readdirSync(repoPath('docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const pages = ['README.md', ...docPages];
// The benchmark pages are checked for links only: they name paths with figures, not as documentation.
const linkedPages = [...pages, 'bench/README.md', 'bench/JOURNAL.md', 'bench/infinite/README.md'];
const text = new Map(linkedPages.map((p) => [p, readFileSync(repoPath(p), 'utf8')]));

t.test('every endpoint is documented on exactly the page of its family', async (t) => {
  const documentedIn = new Map<unknown, Set<string>>();
  for (const page of pages) {
    for (const path of documentedPaths(text.get(page) as string)) {
      const named = endpointsNamed(path, all);
      t.ok(named.length > 0, `${page} documents ${path}: a path some registry serves`);
      for (const { endpoint } of named) documentedIn.set(endpoint, (documentedIn.get(endpoint) ?? new Set()).add(page));
    }
  }
  for (const registry of all) {
    for (const endpoint of registry.endpoints) {
      const home = docFileOf(registry.host, endpoint, all);
      t.same([...(documentedIn.get(endpoint) ?? [])], [home], `${registry.host} ${endpoint.path} (${endpoint.category}) is documented in ${home} only`);
    }
  }
});

t.test('every category has a docs page that exists; a chaos category has the page named after it', async (t) => {
  for (const host of ['chaos', 'control', 'bots'] as const satisfies readonly HostName[]) {
    for (const category of CATEGORIES[host]) {
      const page = (CATEGORY_DOCS[host] as Readonly<Record<string, string>>)[category];
      t.ok(page !== undefined && existsSync(repoPath(page)), `${host} ${category}: ${page}`);
      if (host === 'chaos') t.equal(page, `docs/${category}.md`, `chaos ${category} is documented on its own page`);
    }
  }
});

t.test('documentedPaths reads headings, first table cells and bold lead-ins, not prose or code', async (t) => {
  const page = [
    '## GET /status/{code}', '| `/robots.txt`, /llms.txt | x |', '**`/icon.png?size=192\\|512`** (size)',
    '* **`/slow?ms=`** waits', 'Prose names /flaky.', '```', '# /drip', '```', '| 404 | `/infinite/xml` |',
    '## /method: GET', '| Header block / fields | 16 KiB |',
  ].join('\n');
  t.same(documentedPaths(page), ['/status/{code}', '/robots.txt', '/llms.txt', '/icon.png', '/slow', '/method']);
  t.same(endpointsNamed('/no-such-path', all), []);
  t.ok(endpointsNamed('/infinite/json/<type>/<tail>', all).length === 1, 'a concrete path names its template');
});

t.test('a control twin is documented beside its chaos or bots twin; a twinless one by its category', async (t) => {
  const control = all.find((r) => r.host === 'control');
  const at = (path: string) => control?.match(path)?.endpoint;
  const matched = at('/matched-content-type');
  t.ok(matched && twinOf('control', matched, all)?.endpoint.path === '/wrong-content-type', 'a counterpartPath resolves');
  for (const path of ['/oauth/token', '/echo', '/infinite/json/users/a']) {
    const endpoint = at(path);
    t.ok(endpoint && twinOf('control', endpoint, all) === undefined, `${path}: no twin on another host`);
  }
  const flaky = at('/flaky');
  t.equal(flaky && docFileOf('control', flaky, all), 'docs/fault-injection.md', 'control /flaky (status) sits beside chaos /flaky');
  const jwks = at('/.well-known/jwks.json');
  t.equal(jwks && docFileOf('control', jwks, all), 'docs/discovery.md', 'control JWKS sits beside its chaos twin (discovery)');
  const security = at('/security');
  t.equal(security && docFileOf('control', security, all), 'docs/crawler-files.md', 'a bots twin places it too');
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const heading = fence ? undefined : /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Relative links `[text](target)` outside code, as [target file relative to the repo, anchor]. */
function links(page: string, markdown: string): [string, string | undefined][] {
  const out: [string, string | undefined][] = [];
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    if (fence) continue;
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] as string;
      if (/^[a-z]+:/i.test(target)) continue;
      const [file, anchor] = target.split('#') as [string, string | undefined];
      out.push([file === '' ? page : normalize(join(dirname(page), file)), anchor]);
    }
  }
  return out;
}

t.test('every relative link resolves, #anchors included', async (t) => {
  for (const page of linkedPages) {
    for (const [file, anchor] of links(page, text.get(page) as string)) {
      t.ok(existsSync(repoPath(file)), `${page}: link to ${file}`);
      if (anchor === undefined || !file.endsWith('.md') || !existsSync(repoPath(file))) continue;
      t.ok(anchors(readFileSync(repoPath(file), 'utf8')).has(anchor), `${page}: link to ${file}#${anchor}`);
    }
  }
});

t.test('the link checker itself', async (t) => {
  t.same([...anchors('# A `b` c\n## Telling chaos from failure\n## GET /status/{code}\n## X\n## X')],
    ['a-b-c', 'telling-chaos-from-failure', 'get-statuscode', 'x', 'x-1']);
  t.same(links('docs/a.md', '[x](b.md#y) [z](../README.md) [w](#v) [u](https://e.org) `[c](d.md)`'),
    [['docs/b.md', 'y'], ['README.md', undefined], ['docs/a.md', 'v']]);
});

t.test('every docs page is linked from the README', async (t) => {
  const linked = new Set(links('README.md', text.get('README.md') as string).map(([file]) => file));
  for (const page of docPages) t.ok(linked.has(page), `README links ${page}`);
});

const DEFINITIONS = 'README.md#urls-in-examples';

t.test('URL placeholders are defined before their first use', async (t) => {
  const readme = handWritten(text.get('README.md') as string);
  const definitions = readme.indexOf('\n### URLs in examples\n');
  t.ok(definitions > 0, 'the README defines the placeholders');
  const defined = new Set(readme.slice(definitions).split('\n').map((l) => /^\| `(\{[a-z]+_url\})`/.exec(l)?.[1]).filter((p) => p));
  t.ok(defined.size >= 6, `${defined.size} placeholders defined`);
  for (const page of pages) {
    const body = handWritten(text.get(page) as string);
    const first = body.search(/\{[a-z]+_url\}/);
    if (first === -1) continue;
    for (const m of body.matchAll(/\{[a-z]+_url\}/g)) t.ok(defined.has(m[0]), `${page}: ${m[0]} is defined in ${DEFINITIONS}`);
    if (page === 'README.md') {
      t.ok(first > definitions, 'README uses a placeholder only after defining it');
    } else {
      const link = body.indexOf(`](${relative(dirname(page), 'README.md')}#urls-in-examples)`);
      t.ok(link !== -1 && link < first, `${page} links ${DEFINITIONS} before its first placeholder`);
    }
  }
});

t.test('each placeholder is mapped to its default address where a page first uses it', async (t) => {
  const urls = loadConfig({}).urls;
  const defaults: Readonly<Record<string, string>> = {
    '{base_url}': urls.base, '{control_url}': urls.control, '{bots_url}': urls.bots,
    '{hub_url}': urls.hub, '{identity_url}': urls.identity, '{agents_url}': urls.agents,
  };
  t.equal(defaults['{base_url}'], 'http://127.0.0.1:8081', 'the embedded default');
  for (const page of pages) {
    const body = handWritten(text.get(page) as string);
    for (const placeholder of new Set(body.match(/\{[a-z]+_url\}/g) ?? [])) {
      const first = body.indexOf(placeholder);
      // The same sentence or table row: the address follows the placeholder closely.
      const near = body.slice(first, first + 240);
      t.ok(near.includes(`\`${defaults[placeholder]}\``), `${page}: ${placeholder} first appears with \`${defaults[placeholder]}\``);
    }
  }
});

t.test('no page cites a document that is not in the repository', async (t) => {
  // The generated tables quote the registries' summaries, which this test does not own.
  for (const page of pages) {
    const body = handWritten(text.get(page) as string);
    t.notMatch(body, /\b(SPEC|DESIGN) §/, `${page}: no SPEC §/DESIGN § references`);
    t.notMatch(body, /\b(SPEC|DESIGN)\.md\b|\.\.\/shared\/|\bthe spec(?:'s)?\b/i, `${page}: no SPEC.md, DESIGN.md, ../shared or "the spec" (say what it says, or link docs/)`);
    t.notMatch(body, /\bthe report\b/i, `${page}: no internal references to a report`);
  }
});
