// /llm/v1beta/models/<model>:generateContent and :streamGenerateContent driven
// by the official Google Gen AI SDK (@google/genai) over loopback: the twin
// parses cleanly, and each chaos mode (named by X-Chaos-Mode, which the SDK
// sends as an extra header) gives the outcome docs/llm.md publishes.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { MESSAGES_MODES } from '../../../shared/content/agent/index.js';
import { ASK, TOOLS, clientFor, collect, failure, GEMINI_SDK_SCENARIOS } from '../../../scripts/scorecard/sdk-gemini.js';
import { publishedSdkOutcomes } from '../../../scripts/scorecard/sdk-table.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
t.test('control Gemini API with the official SDK: a clean echo, streamed or not, and a function call', async (t) => {
  const { port } = await startHttp(t, 'control');
  const client = clientFor(port);
  const plain = await client.models.generateContent(ASK);
  t.equal(plain.text, 'Echo: hello there chaos');
  t.equal(plain.candidates?.[0]?.finishReason, 'STOP');
  t.match(plain.usageMetadata, { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 });
  const { chunks, outcome } = await collect(client);
  t.equal(outcome, 'resolves');
  t.equal(chunks.map((c) => c.text ?? '').join(''), 'Echo: hello there chaos', 'the chunks join into the reply');
  t.equal(chunks.at(-1)?.candidates?.[0]?.finishReason, 'STOP', 'the last chunk finishes');
  const call = await client.models.generateContent({ ...ASK, config: TOOLS });
  t.same(call.functionCalls?.map((f) => [f.name, f.args]), [['lookup', { text: 'Echo: hello there chaos' }]]);
});


function documentedOutcomes(): Map<string, string> {
  const page = readFileSync(join(ROOT, 'docs', 'llm.md'), 'utf8');
  const start = page.indexOf('### What the official Google Gen AI SDK does');
  const end = page.indexOf('\n## ', start);
  const section = page.slice(start, end === -1 ? undefined : end);
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\| `([a-z-]+)` \| (.+) \|$/.exec(line);
    if (cells) rows.set(cells[1] as string, (cells[2] as string).split(' | ').pop() as string);
  }
  return rows;
}

t.test('chaos Gemini API with the official SDK: each mode gives the outcome docs/llm.md publishes', async (t) => {
  const { port } = await startChaos(t);
  const documented = documentedOutcomes();
  const published = publishedSdkOutcomes('gemini');
  for (const mode of MESSAGES_MODES) {
    const observed = await GEMINI_SDK_SCENARIOS[mode](port);
    t.equal(observed, documented.get(mode), `${mode}: ${observed}`);
    t.equal(observed, published.get(mode), `${mode}: docs/clients.md, generated from this scenario, says the same`);
  }
});

t.test('Gemini API bad input: Google\'s error shape, a real error with no X-Chaos-* line, on both hosts', async (t) => {
  const hosts = [['chaos', (await startChaos(t)).port], ['control', (await startHttp(t, 'control')).port]] as const;
  for (const [host, port] of hosts) {
    const cases = [
      ['not JSON', 'chaos:generateContent', '{', 400],
      ['no contents', 'chaos:generateContent', '{}', 400],
      ['an unknown method', 'chaos:countTokens', '{"contents":[]}', 404],
      ['a body over 64 KiB', 'chaos:generateContent', JSON.stringify({ contents: [{ parts: [{ text: 'x'.repeat(64 * 1024) }] }] }), 413],
    ] as const;
    for (const [name, call, body, status] of cases) {
      const response = await fetch(`http://127.0.0.1:${port}/llm/v1beta/models/${call}?mode=usage-lie`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      t.equal(response.status, status, `${host}, ${name}: ${status}`);
      t.match(await response.json(), { error: { code: status } });
      t.same([...response.headers.keys()].filter((n) => n.startsWith('x-chaos-') && n !== 'x-chaos-origin' && n !== 'x-chaos-counterpart'), [], `${host}, ${name}: no X-Chaos-* line`);
    }
  }
});
