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

/** The text of a `## ` section, up to the next one. */
function section(readme: string, heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start === -1) return '';
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

t.test('README states what the service does, not work in progress', async (t) => {
  const readme = readFileSync(readmePath(), 'utf8');
  t.notMatch(readme, /\bthe report\b/i, 'no internal references to a report');
  const infinite = section(readme, 'Infinite content (control host)');
  t.ok(infinite.length > 1000, 'the infinite section exists');
  t.notMatch(infinite, /X-Robots-Tag` yet|does not add `X-Robots-Tag`/, 'the 400 and 405 do carry X-Robots-Tag (tests/integration/infinite.test.ts)');
  t.notMatch(infinite, /should carry `Disallow/, 'robots.txt does carry the Disallow (tests/integration/control-files.test.ts)');
  t.match(infinite, /router adds it to its own 400 \(bad `fields` or `links`, malformed\s+percent-encoding\) and 405/);
  t.match(infinite, /`\/robots.txt` carries `Disallow: \/infinite\/`/);
});
