// Services import only shared/, never each other, and shared/ imports no
// service (DESIGN §3). Scans the TypeScript sources (not dist/) for every
// static import, re-export and dynamic import with a relative specifier.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

/** The repository root: this file runs as dist/tests/unit/layering.test.js. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const SPECIFIER_RE = /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|\bimport\s*['"]([^'"]+)['"]/g;

/** Relative import specifiers of one source text. */
function specifiers(source: string): string[] {
  return [...source.matchAll(SPECIFIER_RE)].map((m) => (m[1] ?? m[2] ?? m[3]) as string).filter((s) => s.startsWith('.'));
}

/** services/<host>/… → host; shared/… → 'shared'; else undefined (services/*.ts, the composition root, is no host). */
function layerOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] === 'shared') return 'shared';
  if (parts[0] === 'services' && parts.length > 2) return `services/${parts[1]}`;
  return undefined;
}

/** The forbidden imports of a file (repository-relative, posix): a service into another, or shared/ into services/. */
function violations(file: string, source: string): string[] {
  const from = layerOf(file);
  if (from === undefined) return [];
  const found: string[] = [];
  for (const spec of specifiers(source)) {
    const target = posix.normalize(posix.join(posix.dirname(file), spec));
    const to = layerOf(target);
    const intoServices = target.startsWith('services/');
    if (from === 'shared' ? intoServices : to !== undefined && to !== 'shared' && to !== from) {
      found.push(`${file} imports ${target}`);
    }
  }
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The role folders of shared/ and what each may import besides itself
 * (docs/architecture.md, "Folders"): lower folders never reach up, so the
 * folders form no cycle. Every file of shared/ lives in one of them.
 */
export const SHARED_ROLES: Readonly<Record<string, readonly string[]>> = {
  config: [],
  primitives: [],
  content: ['config', 'primitives', 'store'],
  store: ['config', 'primitives'],
  // TLS material (the kept test PKI, minted leaves, the self-check): the chaos process serves it, the hub publishes it.
  tls: ['config', 'primitives'],
  registry: ['config', 'primitives', 'store'],
  // tls: the modes' data (tls/modes.ts), which the chaos host's OpenAPI lists.
  catalog: ['config', 'primitives', 'store', 'registry', 'tls'],
  pipeline: ['config', 'primitives', 'store', 'registry', 'catalog'],
  runtime: ['config', 'primitives', 'store', 'registry', 'pipeline'],
  hub: ['config', 'primitives', 'store', 'registry', 'catalog', 'pipeline', 'tls'],
  // The client exam (docs/exam.md): state and grading in the store, its recorder called by the pipeline, its pages on the hub.
  exam: ['config', 'primitives', 'store', 'registry', 'catalog', 'pipeline'],
  http: ['config', 'primitives', 'store', 'registry', 'catalog', 'pipeline', 'runtime', 'hub', 'tls', 'exam'],
};

/** shared/<role>/… → role; a file directly in shared/ has none (and is itself a violation). */
function roleOf(path: string): string | undefined {
  const parts = path.split('/');
  return parts[0] === 'shared' && parts.length > 2 ? parts[1] : undefined;
}

/** The imports of a shared/ file that its role folder may not make. */
function roleViolations(file: string, source: string): string[] {
  const from = roleOf(file);
  if (!file.startsWith('shared/')) return [];
  if (from === undefined || SHARED_ROLES[from] === undefined) return [`${file} is in no role folder of shared/`];
  const allowed = SHARED_ROLES[from];
  return specifiers(source)
    .map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)))
    .filter((target) => {
      const to = roleOf(target);
      return target.startsWith('shared/') && to !== from && !(to !== undefined && allowed.includes(to));
    })
    .map((target) => `${file} (${from}) imports ${target}`);
}

/** Every import cycle among the files, type-only imports included, each as the path that closes it. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
      else if (!state.has(next) && graph.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

/** file → the repository files it imports (specifiers resolved, .js read as the .ts source). */
function importGraph(files: readonly { file: string; source: string }[]): Map<string, string[]> {
  return new Map(
    files.map(({ file, source }) => [
      file,
      specifiers(source).map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts')),
    ]),
  );
}

t.test('the checker finds what it must (a check that cannot fail is no check)', async (t) => {
  t.same(violations('services/bots/endpoints/file.ts', "import { x } from '../../control/endpoints/crawler-files/site.js';"), [
    'services/bots/endpoints/file.ts imports services/control/endpoints/crawler-files/site.js',
  ]);
  t.equal(violations('services/chaos/x.ts', "export { y } from '../bots/y.js';").length, 1, 're-exports count');
  t.equal(violations('services/control/x.ts', "const m = await import('../chaos/m.js');").length, 1, 'dynamic imports count');
  t.equal(violations('shared/content/a.ts', "import type { B } from '../../services/chaos/b.js';").length, 1, 'shared/ into services/');
  t.same(violations('services/chaos/x.ts', "import { a } from '../../shared/a.js';\nimport { b } from './b.js';"), [], 'shared/ and itself are fine');
  t.same(violations('services/registries.ts', "import { c } from './chaos/c.js';\nimport { d } from './control/d.js';"), [], 'the composition root may');
});

t.test('the role and cycle checkers find what they must', async (t) => {
  t.same(roleViolations('shared/store/redis.ts', "import { x } from '../pipeline/dispatch.js';"), ['shared/store/redis.ts (store) imports shared/pipeline/dispatch.js'], 'a lower folder reaching up');
  t.same(roleViolations('shared/http/a.ts', "import type { C } from '../config/config.js';\nimport { b } from './b.js';"), [], 'down and sideways within the folder are fine');
  t.same(roleViolations('shared/loose.ts', ''), ['shared/loose.ts is in no role folder of shared/']);
  t.same(roleViolations('shared/nope/a.ts', ''), ['shared/nope/a.ts is in no role folder of shared/']);
  const graph = importGraph([
    { file: 'a/x.ts', source: "import type { Y } from './y.js';" },
    { file: 'a/y.ts', source: "import { z } from '../b/z.js';" },
    { file: 'b/z.ts', source: "import type { X } from '../a/x.js';" },
    { file: 'b/w.ts', source: "import { z } from './z.js';" },
  ]);
  t.same(cycles(graph), ['a/x.ts -> a/y.ts -> b/z.ts -> a/x.ts'], 'a type-only cycle through three files');
  t.same(cycles(importGraph([{ file: 'a.ts', source: "import { b } from './b.js';" }, { file: 'b.ts', source: '' }])), []);
});

t.test('shared/ folders import only downwards, and no file imports itself round a cycle', async (t) => {
  const files = [...sources('services'), ...sources('shared')].map((f) => f.split(sep).join('/'));
  const read = files.map((file) => ({ file, source: readFileSync(join(ROOT, file), 'utf8') }));
  t.same(read.flatMap(({ file, source }) => roleViolations(file, source)), [], 'every shared/ file in a role folder, importing only what its folder may');
  t.same(Object.keys(SHARED_ROLES).sort(), readdirSync(join(ROOT, 'shared'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort(), 'every folder of shared/ has its rule');
  t.same(cycles(importGraph(read)), [], 'no import cycle, type-only imports included');
});

t.test('no service imports another, and shared/ imports no service', async (t) => {
  const files = [...sources('services'), ...sources('shared')];
  t.ok(files.length > 100, `${files.length} source files scanned`);
  const found = files.flatMap((file) => violations(file.split(sep).join('/'), readFileSync(join(ROOT, file), 'utf8')));
  t.same(found, [], 'no forbidden import');
  t.same(
    files.filter((f) => f.startsWith('services/bots/')).filter((f) => /services\/control|from '(\.\.\/)+control\//.test(readFileSync(join(ROOT, f), 'utf8'))),
    [],
    'grep -rl "services/control" services/bots prints nothing',
  );
});
