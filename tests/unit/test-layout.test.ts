// Where tests live (issue 24 item 9): tests/integration/ holds one entry per
// catalog category, <category>.test.ts or a folder <category>/ of parts, and
// the cross-cutting suites below, each a folder; nothing else. No test file,
// unit or integration, passes 600 lines. docs/development.md names every
// suite. Reads the TypeScript sources, not dist/ (which may keep stale files).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { TLS_CATEGORY } from '../../shared/hub/tls-section.js';
import { CATEGORIES } from '../../shared/registry/registry.js';

/** The repository root: this file runs as dist/tests/unit/test-layout.test.js. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const INTEGRATION = join(ROOT, 'tests', 'integration');

/** The suites that belong to no one category: the fixed list docs/development.md names. */
const CROSS_CUTTING_SUITES = [
  'wire', // the chaos HTTP/1.1 wire: parser, framing, connections, golden bytes, fault stages, TLS transport
  'front-door', // the HAProxy edge
  'store', // Redis: single, sentinel, cluster, held slots, several processes
  'hostile', // hostile clients and the limits: idle floods, non-reading clients, client identity, general limit
  'stack', // processes: make up/down, SIGTERM, embedding, the image layout
  'catalog', // the catalog pages, OpenAPI, every parameter, declared headers, aliases
  'hub', // the hub and /compare
  'exam', // the client exam: graded clients, the report, replicas on Redis, expiry
  'observe', // metrics, logs, observe hooks, Prometheus queries
  'clients', // what real clients (curl) make of the headline lies
  'bench', // the bench tools' own tests (floor server, held client)
] as const;

const MAX_TEST_LINES = 600;

/** Every catalog category of every host, once, and the hub catalog's TLS hosts. */
const categories = new Set<string>([...Object.values(CATEGORIES).flat(), TLS_CATEGORY]);

/** The problems of a tests/integration/ listing: entries that are no category or suite, categories with no tests. */
function layoutProblems(dir: string, known: ReadonlySet<string>, suites: readonly string[]): string[] {
  const problems: string[] = [];
  const placed = new Map<string, string[]>();
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (!known.has(entry) && !suites.includes(entry)) problems.push(`${entry}/ is neither a catalog category nor a cross-cutting suite`);
      for (const inner of readdirSync(path).sort()) {
        if (!inner.endsWith('.test.ts')) problems.push(`${entry}/${inner} is not a test file (helpers go to tests/helpers/)`);
      }
      placed.set(entry, [...(placed.get(entry) ?? []), `${entry}/`]);
      continue;
    }
    const name = entry.endsWith('.test.ts') ? entry.slice(0, -'.test.ts'.length) : undefined;
    if (name === undefined) problems.push(`${entry} is not a test file (helpers go to tests/helpers/)`);
    else if (suites.includes(name)) problems.push(`${entry}: a cross-cutting suite is a folder, ${name}/`);
    else if (!known.has(name)) problems.push(`${entry} is not named after a catalog category`);
    else placed.set(name, [...(placed.get(name) ?? []), entry]);
  }
  for (const category of [...known].sort()) {
    const where = placed.get(category) ?? [];
    if (where.length === 0) problems.push(`category ${category} has no tests/integration/${category}.test.ts nor ${category}/`);
    if (where.length > 1) problems.push(`category ${category} is in two places: ${where.join(' and ')}`);
  }
  return problems;
}

/** Every *.test.ts under a folder, recursively. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

t.test('tests/integration/ holds the catalog categories and the cross-cutting suites, nothing else', async (t) => {
  t.ok(categories.size >= 21, `${categories.size} catalog categories read from the registry and the hub`);
  t.same(layoutProblems(INTEGRATION, categories, CROSS_CUTTING_SUITES), []);
  for (const suite of CROSS_CUTTING_SUITES) {
    t.ok(statSync(join(INTEGRATION, suite), { throwIfNoEntry: false })?.isDirectory(), `the ${suite}/ suite exists`);
  }
});

t.test(`no test file passes ${MAX_TEST_LINES} lines`, async (t) => {
  const files = testFiles(join(ROOT, 'tests'));
  t.ok(files.length > 50, `${files.length} test files read`);
  const long = files
    .map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_TEST_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  t.same(long, []);
});

t.test('docs/development.md names every cross-cutting suite', async (t) => {
  const development = readFileSync(join(ROOT, 'docs', 'development.md'), 'utf8');
  for (const suite of CROSS_CUTTING_SUITES) {
    t.match(development, `tests/integration/${suite}/`, `${suite}/ is named`);
  }
});
