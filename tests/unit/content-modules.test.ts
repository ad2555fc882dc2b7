// One content module per category (docs/architecture.md, "Where things go"):
// the bodies a chaos endpoint and its twin share live in
// shared/content/<category>.ts, or in shared/content/<category>/ behind an
// index.ts when they need several files. A reader who knows an endpoint's
// category finds them there; this test fails on a module or folder named after
// no category of CATEGORIES, on a folder without its index.ts, and on a
// content file over 450 lines. Reads the TypeScript sources (not dist/).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { CATEGORIES } from '../../shared/registry/registry.js';

/** The repository root: this file runs as dist/tests/unit/content-modules.test.js. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CONTENT = join(ROOT, 'shared', 'content');

/**
 * Modules of shared/content/ named after no category, each with why it is
 * allowed. Empty: every shared body belongs to the category of its endpoint,
 * and what several categories use lives with its main user (crawler-files/site.ts
 * holds the site model the other bots families build on) or in shared/primitives/.
 */
export const NON_CATEGORY_MODULES: Readonly<Record<string, string>> = {};

const MAX_LINES = 450;

/** One entry of shared/content/: a `.ts` file, or a folder with the names of its files. */
export type ContentEntry = { readonly kind: 'file'; readonly name: string } | { readonly kind: 'folder'; readonly name: string; readonly files: readonly string[] };

/** What is wrong with shared/content/'s entries: a name that is no category (nor allowed), a folder without index.ts, a stray file. */
export function contentProblems(entries: readonly ContentEntry[], categories: ReadonlySet<string>, allowed: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const entry of entries) {
    if (entry.kind === 'file' && !entry.name.endsWith('.ts')) {
      problems.push(`shared/content/${entry.name} is not a TypeScript module`);
      continue;
    }
    const name = entry.kind === 'file' ? entry.name.slice(0, -'.ts'.length) : entry.name;
    const shown = entry.kind === 'file' ? `shared/content/${entry.name}` : `shared/content/${entry.name}/`;
    if (!categories.has(name) && !Object.hasOwn(allowed, name)) problems.push(`${shown} is named after no category of CATEGORIES`);
    if (entry.kind === 'folder' && !entry.files.includes('index.ts')) problems.push(`${shown} has no index.ts`);
  }
  const names = entries.map((e) => (e.kind === 'file' ? e.name.replace(/\.ts$/, '') : e.name));
  for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i))) problems.push(`shared/content/${name} is both a module and a folder`);
  return problems;
}

function contentEntries(): ContentEntry[] {
  return readdirSync(CONTENT, { withFileTypes: true }).map((entry): ContentEntry =>
    entry.isDirectory() ? { kind: 'folder', name: entry.name, files: readdirSync(join(CONTENT, entry.name)) } : { kind: 'file', name: entry.name },
  );
}

const ALL_CATEGORIES: ReadonlySet<string> = new Set(Object.values(CATEGORIES).flat());

t.test('the checker finds what it must (a check that cannot fail is no check)', async (t) => {
  const categories = new Set(['payload', 'headers', 'auth']);
  t.same(contentProblems([{ kind: 'file', name: 'headers.ts' }, { kind: 'folder', name: 'payload', files: ['index.ts', 'json.ts'] }], categories, {}), []);
  t.same(contentProblems([{ kind: 'file', name: 'format.ts' }], categories, {}), ['shared/content/format.ts is named after no category of CATEGORIES'], 'a module of several categories');
  t.same(contentProblems([{ kind: 'folder', name: 'streams', files: ['index.ts'] }], categories, {}), ['shared/content/streams/ is named after no category of CATEGORIES'], 'a folder');
  t.same(contentProblems([{ kind: 'folder', name: 'auth', files: ['jwt.ts'] }], categories, {}), ['shared/content/auth/ has no index.ts']);
  t.same(contentProblems([{ kind: 'file', name: 'notes.md' }], categories, {}), ['shared/content/notes.md is not a TypeScript module']);
  t.same(contentProblems([{ kind: 'file', name: 'auth.ts' }, { kind: 'folder', name: 'auth', files: ['index.ts'] }], categories, {}), ['shared/content/auth is both a module and a folder']);
  t.same(contentProblems([{ kind: 'file', name: 'format.ts' }], categories, { format: 'why' }), [], 'an allowed module passes');
});

t.test('shared/content/ holds one module or folder per category, and nothing else', async (t) => {
  const entries = contentEntries();
  t.ok(entries.length >= 10, `${entries.length} entries scanned`);
  t.same(contentProblems(entries, ALL_CATEGORIES, NON_CATEGORY_MODULES), [], 'every module and folder is named after a category; every folder has its index.ts');
  t.same(Object.keys(NON_CATEGORY_MODULES).filter((name) => ALL_CATEGORIES.has(name)), [], 'the allow-list names no category (a category needs no allowance)');
});

t.test(`no content file is over ${MAX_LINES} lines`, async (t) => {
  const files = contentEntries().flatMap((e) => (e.kind === 'file' ? [e.name] : e.files.filter((f) => f.endsWith('.ts')).map((f) => `${e.name}/${f}`)));
  const long = files
    .map((file) => ({ file, lines: readFileSync(join(CONTENT, file), 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `shared/content/${file}: ${lines} lines`);
  t.same(long, []);
});
