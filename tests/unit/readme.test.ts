import { readFileSync } from 'node:fs';
import t from 'tap';
import { currentBlock, generatedBlock, handWritten, readmePath, repoPath } from '../../scripts/readme-tables.js';

const readme = readFileSync(readmePath(), 'utf8');

t.test('README endpoint tables match the registries', async (t) => {
  const block = currentBlock(readme);
  t.ok(block, 'README has the generated block');
  t.equal(block, generatedBlock(), 'run `make readme` to regenerate');
});

t.test('README keeps the two commands', async (t) => {
  t.match(readme, /\nmake up {2,}#/);
  t.match(readme, /\nmake test {2,}#/);
});

t.test('README stays the page a user reads first', async (t) => {
  // The generated tables grow with the registries; the hand-written part should not.
  const lines = handWritten(readme).split('\n').length;
  t.ok(lines <= 260, `${lines} hand-written lines: per-family detail belongs in docs/`);
  for (const port of ['8081', '8082', '8083']) t.match(readme, `http://127.0.0.1:${port}`, `the hosts table names :${port}`);
  for (const heading of ['## Two commands', '## The hosts', '## Telling chaos from failure', '## Configuration', '## Endpoints', '## Documentation']) {
    t.match(readme, `\n${heading}\n`, heading);
  }
  t.match(readme, /X-Chaos-Category/);
  t.match(readme, /application\/problem\+json/, 'the real 429 shape');
  t.match(readme, /"error": ?"internal_error"/, 'the real 500 shape');
});

/** The text of a `## ` section, up to the next one. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start === -1) return '';
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

t.test('docs/infinite.md states what the service does, not work in progress', async (t) => {
  const infinite = readFileSync(repoPath('docs/infinite.md'), 'utf8');
  const errors = section(infinite, 'Errors');
  t.ok(errors.length > 1000, 'the errors section exists');
  t.notMatch(infinite, /X-Robots-Tag` yet|does not add `X-Robots-Tag`/, 'the 400 and 405 do carry X-Robots-Tag (tests/integration/infinite/endpoint.test.ts)');
  t.notMatch(infinite, /should carry `Disallow/, 'robots.txt does carry the Disallow (tests/integration/crawler-files.test.ts)');
  t.match(errors, /router adds it to its own 400 \(bad `fields` or `links`, malformed\s+percent-encoding\) and 405/);
  t.match(errors, /`\/robots.txt` carries `Disallow: \/infinite\/`/);
});
