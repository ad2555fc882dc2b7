// The prose of README's agent section names control categories by hand (the
// generated tables are checked by readme.test.ts): each must be the
// registry's, so the text cannot drift from the code again.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { createControlRegistry } from '../../services/control/endpoints/index.js';
import { readmePath } from '../../scripts/readme-tables.js';

const readme = readFileSync(readmePath(), 'utf8');
const start = readme.indexOf('### Control twins');
const section = readme.slice(start, readme.indexOf('\n### ', start + 1));

t.test('README control twins: every row names the category the control registry gives the path', async (t) => {
  t.ok(start > 0, 'the section exists');
  const registry = createControlRegistry();
  const rows = section.split('\n').filter((line) => /^\| \//.test(line));
  t.ok(rows.length >= 13, `${rows.length} rows`);
  for (const row of rows) {
    const [paths, category] = row.split('|').slice(1, 3).map((cell) => cell.trim()) as [string, string];
    for (const path of paths.split(', ')) {
      const match = registry.match(path);
      t.ok(match, `${path} is a control endpoint`);
      t.equal(category, match?.endpoint.category, `${path}: category`);
    }
  }
});

t.test('README control twins: the text names the categories the agent twins are in', async (t) => {
  t.notMatch(section, /no `agent`/, 'the control host has an agent category');
  t.match(section, /`agent`/);
  t.match(section, /`auth`/);
});
