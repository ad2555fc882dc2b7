import { readFileSync } from 'node:fs';
import t from 'tap';
import { currentBlock, generatedBlock, readmePath } from '../../scripts/readme-tables.js';

t.test('README endpoint tables match the registries', async (t) => {
  const readme = readFileSync(readmePath(), 'utf8');
  const block = currentBlock(readme);
  t.ok(block, 'README has the generated block');
  t.equal(block, generatedBlock(), 'run `make readme` to regenerate');
});

t.test('README keeps the two commands', async (t) => {
  const readme = readFileSync(readmePath(), 'utf8');
  t.match(readme, /make up/);
  t.match(readme, /make test/);
});
