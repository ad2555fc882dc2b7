// The prose of the agent and discovery pages names control categories by hand
// (the generated tables are checked by readme.test.ts): each must be the
// registry's, so the text cannot drift from the code again.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { repoPath } from '../../scripts/readme-tables.js';
import { serviceRegistries } from '../../services/registries.js';

/** The `## Control twins` section of a docs page, up to the next `## `. */
function controlTwins(page: string): string {
  const text = readFileSync(repoPath(page), 'utf8');
  const start = text.indexOf('\n## Control twins\n');
  if (start === -1) return '';
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

const sections = ['docs/agent.md', 'docs/discovery.md'].map((page) => [page, controlTwins(page)] as const);

t.test('control twins: every row names the category the control registry gives the path', async (t) => {
  const registry = serviceRegistries().control;
  let rows = 0;
  for (const [page, section] of sections) {
    t.ok(section.length > 0, `${page} has a Control twins section`);
    for (const row of section.split('\n').filter((line) => /^\| \//.test(line))) {
      rows += 1;
      const [paths, category] = row.split('|').slice(1, 3).map((cell) => cell.trim()) as [string, string];
      for (const path of paths.split(', ')) {
        const match = registry.match(path);
        t.ok(match, `${page}: ${path} is a control endpoint`);
        t.equal(category, match?.endpoint.category, `${page}: ${path}: category`);
      }
    }
  }
  t.ok(rows >= 13, `${rows} rows`);
});

t.test('control twins: the text names the categories the agent twins are in', async (t) => {
  const all = sections.map(([, section]) => section).join('\n');
  t.notMatch(all, /no `agent`/, 'the control host has an agent category');
  t.match(all, /`agent`/);
  t.match(all, /`auth`/);
});
