// /llm/v1/responses driven by the official OpenAI SDK (openai) over loopback:
// the twin parses cleanly, streamed and not, and each chaos mode gives the
// outcome docs/llm.md publishes (its table "What the official OpenAI SDK
// does" is checked against what this file measures).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { MESSAGES_MODES } from '../../../shared/content/agent/index.js';
import { ASK, TOOLS, clientFor, failure, OPENAI_SDK_SCENARIOS } from '../../../scripts/scorecard/sdk-openai.js';
import { publishedSdkOutcomes } from '../../../scripts/scorecard/sdk-table.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
t.test('control /llm/v1/responses with the official SDK: a clean echo, streamed or not, and a function call', async (t) => {
  const { port } = await startHttp(t, 'control');
  const { client } = clientFor(port);
  const plain = await client.responses.create(ASK);
  t.equal(plain.output_text, 'Echo: hello there chaos');
  t.match(plain, { object: 'response', status: 'completed', usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } });
  let text = '';
  const stream = client.responses.stream(ASK);
  stream.on('response.output_text.delta', (e) => {
    text += e.delta;
  });
  const streamed = await stream.finalResponse();
  t.equal(text, 'Echo: hello there chaos', 'the deltas join into the reply');
  t.equal(streamed.output_text, 'Echo: hello there chaos');
  t.equal(streamed.status, 'completed');
  const call = await client.responses.stream({ ...ASK, tools: TOOLS }).finalResponse();
  t.match(call.output, [{ type: 'function_call', name: 'lookup', arguments: JSON.stringify({ text: 'Echo: hello there chaos' }), status: 'completed' }]);
  const bad = await client.responses.create({ model: 'chaos' } as unknown as typeof ASK).then(() => 'resolves', failure);
  t.equal(bad, 'BadRequestError 400', 'a request without input: the SDK reads the OpenAI error');
});


function documentedOutcomes(): Map<string, string> {
  const page = readFileSync(join(ROOT, 'docs', 'llm.md'), 'utf8');
  const start = page.indexOf('### What the official OpenAI SDK does');
  const section = page.slice(start, page.indexOf('\n## ', start));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\| `([a-z-]+)` \| (.+) \|$/.exec(line);
    if (cells) rows.set(cells[1] as string, (cells[2] as string).split(' | ').pop() as string);
  }
  return rows;
}

t.test('chaos /llm/v1/responses with the official SDK: each mode gives the outcome docs/llm.md publishes', async (t) => {
  const { port } = await startChaos(t);
  const documented = documentedOutcomes();
  const published = publishedSdkOutcomes('openai');
  for (const mode of MESSAGES_MODES) {
    const observed = await OPENAI_SDK_SCENARIOS[mode](port);
    t.equal(observed, documented.get(mode), `${mode}: ${observed}`);
    t.equal(observed, published.get(mode), `${mode}: docs/clients.md, generated from this scenario, says the same`);
  }
});

t.test('/llm/v1/responses bad input: OpenAI\'s error shape, a real error with no X-Chaos-* line, on both hosts', async (t) => {
  const hosts = [['chaos', (await startChaos(t)).port], ['control', (await startHttp(t, 'control')).port]] as const;
  for (const [host, port] of hosts) {
    for (const [name, body, status] of [['not JSON', '{', 400], ['no input', '{"model":"m"}', 400], ['a body over 64 KiB', JSON.stringify({ ...ASK, pad: 'x'.repeat(64 * 1024) }), 413]] as const) {
      const response = await fetch(`http://127.0.0.1:${port}/llm/v1/responses?mode=usage-lie`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      t.equal(response.status, status, `${host}, ${name}: ${status}`);
      t.match(await response.json(), { error: { type: 'invalid_request_error' } });
      t.same([...response.headers.keys()].filter((n) => n.startsWith('x-chaos-') && n !== 'x-chaos-origin' && n !== 'x-chaos-counterpart'), [], `${host}, ${name}: no X-Chaos-* line`);
    }
  }
});
