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
