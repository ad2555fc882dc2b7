// `npm run new-endpoint -- <category> <slug>`: writes a chaos endpoint, its
// control twin, a docs stub and a failing test stub where they belong, and
// lists both files in their category folders. What it writes compiles and
// serves; the test stub fails until the lie is really tested.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATEGORIES, type Category } from '../shared/registry/registry.js';
import { categoryDoc } from '../shared/registry/categories.js';

const SLUG_RE = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export class ScaffoldError extends Error {
  readonly code = 'ERR_SCAFFOLD';
}

export interface ScaffoldRequest {
  readonly category: string;
  readonly slug: string;
  /** The twin's catalog category on control (its folder mirrors the chaos one either way). */
  readonly controlCategory: string;
}

/** The identifier an index file imports a slug under: `wrong-gzip` → `wrongGzip`. */
export function identifierOf(slug: string): string {
  return slug.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The control category a chaos category's twins take when none is given: the category itself where control has it. */
export function defaultControlCategory(category: string, twinCategories: ReadonlyMap<string, string>): string | undefined {
  if ((CATEGORIES.control as readonly string[]).includes(category)) return category;
  return twinCategories.get(category);
}

/** Adds `import <id> from './<slug>.js'` and `<id>` at the end of a category index's one list. */
export function listInIndex(source: string, slug: string): string {
  const id = identifierOf(slug);
  if (new RegExp(`\\bimport ${id} from`).test(source)) throw new ScaffoldError(`the index already imports ${id}`);
  const list = /(const endpoints: readonly \w+\[\] = \[)([^\]]*)(\];)/.exec(source);
  if (list === null) throw new ScaffoldError('the index has no `const endpoints: readonly …[] = [ … ];` list');
  const imports = [...source.matchAll(/^import .*;$/gm)];
  const last = imports[imports.length - 1];
  if (last === undefined || last.index === undefined) throw new ScaffoldError('the index has no import to follow');
  const after = last.index + last[0].length;
  const items = (list[2] ?? '').trim().replace(/,\s*$/, '');
  const entries = items === '' ? id : `${items}, ${id}`;
  const withList = source.slice(0, list.index) + `${list[1]}${entries}${list[3]}` + source.slice(list.index + list[0].length);
  return `${withList.slice(0, after)}\nimport ${id} from './${slug}.js';${withList.slice(after)}`;
}

function chaosFile({ category, slug }: ScaffoldRequest): string {
  return `import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';

export default defineChaosEndpoint({
  id: '${slug}',
  path: '/${slug}',
  category: '${category}',
  summary: 'TODO: the lie, in one line (the catalog and README show it)',
  params: {},
  // Every X-Chaos-* line the answer may carry beyond Category and Endpoint.
  headers: [],
  handle(ctx) {
    sendComplete(ctx, 200, 'text/plain', Buffer.from('TODO: the documented lie\\n'));
  },
});
`;
}

function controlFile({ controlCategory, slug }: ScaffoldRequest): string {
  return `import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: '${slug}',
  path: '/${slug}',
  category: '${controlCategory}',
  summary: 'Twin of /${slug}: TODO, the well-formed answer in one line',
  params: {},
  handle(ctx) {
    ctx.send(200, 'text/plain', Buffer.from('TODO: the well-formed twin\\n'));
  },
});
`;
}

function testFile({ slug }: ScaffoldRequest): string {
  return `// /${slug} and its control twin on real sockets (written by npm run new-endpoint).
import t from 'tap';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

t.test('chaos /${slug} tells its documented lie, byte for byte; the twin does not', async (t) => {
  const chaos = await startChaos(t);
  const control = await startHttp(t, 'control');
  const lie = parseHead((await rawExchange(chaos.port, get('/${slug}'), { until: completeByLength })).data);
  const twin = parseHead((await rawExchange(control.port, get('/${slug}'), { until: completeByLength })).data);
  t.equal(lie.header('x-chaos-endpoint'), '/${slug}');
  t.equal(twin.header('x-chaos-origin'), 'control');
  t.fail('TODO: assert the exact bytes of the lie and of the twin, then delete this line');
});
`;
}

function docsStub({ slug }: ScaffoldRequest): string {
  return `
## \`/${slug}\`

TODO: the lie, byte for byte; each parameter (default, range) and mode; what
a client should do; the control twin at \`/${slug}\` on the control host.
`;
}

export interface ScaffoldResult {
  readonly written: readonly string[];
  readonly changed: readonly string[];
}

/** Writes the four files and lists the two endpoints; refuses (writing nothing) when any target exists. */
export function scaffold(root: string, request: ScaffoldRequest): ScaffoldResult {
  const { category, slug, controlCategory } = request;
  if (!(CATEGORIES.chaos as readonly string[]).includes(category)) {
    throw new ScaffoldError(`unknown category ${JSON.stringify(category)} (known: ${CATEGORIES.chaos.join(', ')})`);
  }
  if (!SLUG_RE.test(slug)) throw new ScaffoldError(`slug ${JSON.stringify(slug)} must be kebab-case (a-z, 0-9, single hyphens)`);
  if (!(CATEGORIES.control as readonly string[]).includes(controlCategory)) {
    throw new ScaffoldError(`unknown control category ${JSON.stringify(controlCategory)} (known: ${CATEGORIES.control.join(', ')})`);
  }
  const docs = categoryDoc('chaos', category as Category<'chaos'>) as string;
  const files: [string, string][] = [
    [`services/chaos/endpoints/${category}/${slug}.ts`, chaosFile(request)],
    [`services/control/endpoints/${category}/${slug}.ts`, controlFile(request)],
    // In the category's folder (tests/unit/test-layout.test.ts): a category kept in one file
    // then has two places, which that test reports until the stub joins the file.
    [`tests/integration/${category}/${slug}.test.ts`, testFile(request)],
  ];
  const indexes = [`services/chaos/endpoints/${category}/index.ts`, `services/control/endpoints/${category}/index.ts`];
  const taken = files.map(([path]) => path).filter((path) => existsSync(join(root, path)));
  if (taken.length > 0) throw new ScaffoldError(`already there: ${taken.join(', ')}`);
  const missing = [...indexes, docs].filter((path) => !existsSync(join(root, path)));
  if (missing.length > 0) throw new ScaffoldError(`missing: ${missing.join(', ')}`);
  // Every edit is computed before anything is written, so a refusal leaves the tree as it was.
  const edits: [string, string][] = indexes.map((path) => [path, listInIndex(readFileSync(join(root, path), 'utf8'), slug)]);
  edits.push([docs, readFileSync(join(root, docs), 'utf8').replace(/\n*$/, '\n') + docsStub(request)]);
  for (const [path, text] of [...files, ...edits]) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { written: files.map(([path]) => path), changed: edits.map(([path]) => path) };
}

const USAGE = `usage: npm run new-endpoint -- <category> <slug> [--control-category <category>]
  category: one of the chaos host's (${CATEGORIES.chaos.join(', ')})
  slug: kebab-case; the path is /<slug>`;

async function main(argv: readonly string[]): Promise<number> {
  const positional = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--control-category');
  const flag = argv.indexOf('--control-category');
  if (argv.includes('--help') || positional.length !== 2) {
    process.stderr.write(`${USAGE}\n`);
    return argv.includes('--help') ? 0 : 2;
  }
  const [category, slug] = positional as [string, string];
  // Derived from the registry: the catalog category the category's existing twins have on control.
  const { serviceRegistries } = await import('../services/registries.js');
  const registries = serviceRegistries();
  const twinCategories = new Map<string, string>();
  for (const endpoint of registries.control.endpoints) {
    const twin = registries.control.twinOf(endpoint);
    if (twin?.host === 'chaos' && !twinCategories.has(twin.endpoint.category)) twinCategories.set(twin.endpoint.category, endpoint.category);
  }
  const controlCategory = flag === -1 ? defaultControlCategory(category, twinCategories) : argv[flag + 1];
  if (controlCategory === undefined) {
    process.stderr.write(`no control twin in ${category} yet to follow: say --control-category (one of ${CATEGORIES.control.join(', ')})\n`);
    return 2;
  }
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  try {
    const result = scaffold(root, { category, slug, controlCategory });
    process.stdout.write(
      [
        ...result.written.map((p) => `wrote   ${p}`),
        ...result.changed.map((p) => `changed ${p}`),
        '',
        'Next: write the lie and its twin, the test (it fails until you do), the docs section; then `make readme` and `make test`.',
        'docs/architecture.md#adding-an-endpoint-and-its-twin says what else a definition may declare.',
        '',
      ].join('\n'),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    process.stderr.write(`new-endpoint: ${error.message}\n`);
    return 2;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
