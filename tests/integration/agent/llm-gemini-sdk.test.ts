// /llm/v1beta/models/<model>:generateContent and :streamGenerateContent driven
// by the official Google Gen AI SDK (@google/genai) over loopback: the twin
// parses cleanly, and each chaos mode (named by X-Chaos-Mode, which the SDK
// sends as an extra header) gives the outcome docs/llm.md publishes.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import t from 'tap';
import { MESSAGES_MODES, type MessagesMode } from '../../../shared/content/agent/index.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const ASK = { model: 'chaos', contents: 'hello there chaos' };
const TOOLS = { tools: [{ functionDeclarations: [{ name: 'lookup', description: 'x' }] }] };

function clientFor(port: number, mode?: string): GoogleGenAI {
  return new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: `http://127.0.0.1:${port}/llm`, apiVersion: 'v1beta', ...(mode !== undefined ? { headers: { 'X-Chaos-Mode': mode } } : {}) } });
}

function failure(error: unknown): string {
  const e = error as { status?: unknown; message?: unknown; constructor: { name: string } };
  return `${e.constructor.name}${typeof e.status === 'number' ? ` ${e.status}` : ''}: ${String(e.message).slice(0, 50).trimEnd()}`;
}

/** Every chunk of a stream, or how it failed. */
async function collect(client: GoogleGenAI, extra: Record<string, unknown> = {}): Promise<{ chunks: GenerateContentResponse[]; outcome: string }> {
  const chunks: GenerateContentResponse[] = [];
  try {
    for await (const chunk of await client.models.generateContentStream({ ...ASK, ...extra })) chunks.push(chunk);
    return { chunks, outcome: 'resolves' };
  } catch (error) {
    return { chunks, outcome: `throws ${failure(error)}` };
  }
}

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

const SCENARIOS: Readonly<Record<MessagesMode, (port: number) => Promise<string>>> = {
  'stream-cut': async (port) => (await collect(clientFor(port, 'stream-cut'))).outcome,
  'malformed-delta': async (port) => (await collect(clientFor(port, 'malformed-delta'))).outcome,
  'truncated-tool-args': async (port) => {
    const call = await clientFor(port, 'truncated-tool-args').models.generateContent({ ...ASK, config: TOOLS });
    const text = String((call.functionCalls?.[0]?.args as { text?: unknown } | undefined)?.text);
    return `resolves; args.text ${text.length < 'Echo: hello there chaos'.length ? 'cut short' : text}, finishReason ${String(call.candidates?.[0]?.finishReason)}`;
  },
  'stop-reason-lie': async (port) => {
    const r = await clientFor(port, 'stop-reason-lie').models.generateContent(ASK);
    return `resolves with finishReason ${String(r.candidates?.[0]?.finishReason)} and the whole reply`;
  },
  'usage-lie': async (port) => {
    const u = (await clientFor(port, 'usage-lie').models.generateContent(ASK)).usageMetadata;
    return `resolves with promptTokenCount ${String(u?.promptTokenCount)}, totalTokenCount ${(u?.totalTokenCount ?? 0) < (u?.candidatesTokenCount ?? 0) ? 'below candidatesTokenCount' : String(u?.totalTokenCount)}`;
  },
  'rate-limited': async (port) => `throws ${await clientFor(port, 'rate-limited').models.generateContent(ASK).then(() => 'resolves', failure)}`,
  overloaded: async (port) => `throws ${await clientFor(port, 'overloaded').models.generateContent(ASK).then(() => 'resolves', failure)}`,
  'unknown-event': async (port) => {
    const { chunks, outcome } = await collect(clientFor(port, 'unknown-event'));
    return `${outcome}; text ${chunks.map((c) => c.text ?? '').join('') === 'Echo: hello there chaos' ? 'whole' : 'changed'}`;
  },
  'duplicate-final-event': async (port) => {
    const { chunks, outcome } = await collect(clientFor(port, 'duplicate-final-event'));
    return `${outcome}; ${chunks.filter((c) => c.candidates?.[0]?.finishReason !== undefined).length} final chunks, text ${chunks.map((c) => c.text ?? '').join('')}`;
  },
};

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
  for (const mode of MESSAGES_MODES) {
    const observed = await SCENARIOS[mode](port);
    t.equal(observed, documented.get(mode), `${mode}: ${observed}`);
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
