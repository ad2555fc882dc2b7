// /llm/v1/messages driven by the official Anthropic SDK (@anthropic-ai/sdk)
// over loopback: the twin parses cleanly, streamed and not, and each chaos
// mode gives the outcome docs/llm.md publishes (its table "What the official
// SDK does" is checked against what this file measures).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { MESSAGES_MODES } from '../../../shared/content/agent/index.js';
import { ASK, TOOLS, clientFor, failure, ANTHROPIC_SDK_SCENARIOS } from '../../../scripts/scorecard/sdk-anthropic.js';
import { publishedSdkOutcomes } from '../../../scripts/scorecard/sdk-table.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
t.test('control /llm/v1/messages with the official SDK: a clean echo, streamed or not, and a tool call', async (t) => {
  const { port } = await startHttp(t, 'control');
  const { client } = clientFor(port);
  const plain = await client.messages.create(ASK);
  t.match(plain, { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Echo: hello there chaos' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 4 } });
  t.match(plain.id, /^msg_[0-9a-f]{24}$/);
  const stream = client.messages.stream(ASK);
  let text = '';
  stream.on('text', (delta) => {
    text += delta;
  });
  const streamed = await stream.finalMessage();
  t.equal(text, 'Echo: hello there chaos', 'the deltas join into the reply');
  t.same(streamed.content, plain.content, 'streamed: the same message');
  t.equal(streamed.stop_reason, 'end_turn');
  t.same(streamed.usage.output_tokens, 4);
  const tool = await client.messages.stream({ ...ASK, tools: TOOLS }).finalMessage();
  t.match(tool, { stop_reason: 'tool_use', content: [{ type: 'tool_use', name: 'lookup', input: { text: 'Echo: hello there chaos' } }] }, 'tool input parsed from its JSON deltas');
  const bad = await client.messages.create({ ...ASK, max_tokens: 0 }).then(() => 'resolves', (e: unknown) => `${failure(e)} ${(e as { error?: { error?: { type?: string } } }).error?.error?.type}`);
  t.equal(bad, 'BadRequestError 400 invalid_request_error', 'a bad request: the SDK reads the Anthropic error shape');
});


function documentedOutcomes(): Map<string, string> {
  const page = readFileSync(join(ROOT, 'docs', 'llm.md'), 'utf8');
  const start = page.indexOf('### What the official Anthropic SDK does');
  const section = page.slice(start, page.indexOf('\n## ', start));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\| `([a-z-]+)` \| (.+) \|$/.exec(line);
    if (cells) rows.set(cells[1] as string, (cells[2] as string).split(' | ').pop() as string);
  }
  return rows;
}

t.test('chaos /llm/v1/messages with the official SDK: each mode gives the outcome docs/llm.md publishes', async (t) => {
  const { port } = await startChaos(t);
  const documented = documentedOutcomes();
  const published = publishedSdkOutcomes('anthropic');
  for (const mode of MESSAGES_MODES) {
    const observed = await ANTHROPIC_SDK_SCENARIOS[mode](port);
    t.equal(observed, documented.get(mode), `${mode}: ${observed}`);
    t.equal(observed, published.get(mode), `${mode}: docs/clients.md, generated from this scenario, says the same`);
  }
});

t.test('/llm/v1/messages bad input: Anthropic\'s error shape, a real error with no X-Chaos-* line, on both hosts', async (t) => {
  const chaos = (await startChaos(t)).port;
  const control = (await startHttp(t, 'control')).port;
  for (const [host, port] of [['chaos', chaos], ['control', control]] as const) {
    const cases: [string, string, number, string][] = [
      ['not JSON', '{', 400, 'invalid_request_error'],
      ['no max_tokens', JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), 400, 'invalid_request_error'],
      ['a system role in messages', JSON.stringify({ ...ASK, messages: [{ role: 'system', content: 'x' }] }), 400, 'invalid_request_error'],
      ['a body over 64 KiB', JSON.stringify({ ...ASK, pad: 'x'.repeat(64 * 1024) }), 413, 'request_too_large'],
    ];
    for (const [name, body, status, type] of cases) {
      const response = await fetch(`http://127.0.0.1:${port}/llm/v1/messages?mode=usage-lie`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      t.equal(response.status, status, `${host}, ${name}: ${status}`);
      t.match(await response.json(), { type: 'error', error: { type } }, `${host}, ${name}: ${type}`);
      const chaosLines = [...response.headers.keys()].filter((n) => n.startsWith('x-chaos-') && n !== 'x-chaos-origin' && n !== 'x-chaos-counterpart');
      t.same(chaosLines, [], `${host}, ${name}: no X-Chaos-* line`);
    }
  }
  const cut = async (): Promise<string> => {
    const response = await fetch(`http://127.0.0.1:${chaos}/llm/v1/messages?mode=malformed-delta`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ASK) });
    t.equal(response.headers.get('x-chaos-llm-mode'), 'malformed-delta');
    return response.text();
  };
  const first = await cut();
  t.equal(await cut(), first, 'seeded by the request: the same delta is broken each time');
  const parses = (event: string): boolean => {
    try {
      JSON.parse(event.slice(event.indexOf('data: ') + 6));
      return true;
    } catch {
      return false;
    }
  };
  const deltas = first.split('\n\n').filter((e) => e.startsWith('event: content_block_delta'));
  t.equal(deltas.filter((e) => !parses(e)).length, 1, 'exactly one delta does not parse');
  t.ok(first.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n'), 'the stream otherwise ends properly');
});
