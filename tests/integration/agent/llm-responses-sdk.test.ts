// /llm/v1/responses driven by the official OpenAI SDK (openai) over loopback:
// the twin parses cleanly, streamed and not, and each chaos mode gives the
// outcome docs/llm.md publishes (its table "What the official OpenAI SDK
// does" is checked against what this file measures).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import t from 'tap';
import { MESSAGES_MODES, type MessagesMode } from '../../../shared/content/agent/index.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const ASK = { model: 'chaos', input: 'hello there chaos' };
const TOOLS = [{ type: 'function' as const, name: 'lookup', parameters: { type: 'object', properties: { text: { type: 'string' } } }, strict: false }];

function clientFor(port: number, mode?: string, maxRetries = 0): { client: OpenAI; sent: () => number } {
  let sent = 0;
  const client = new OpenAI({
    apiKey: 'test-key',
    baseURL: `http://127.0.0.1:${port}/llm/v1`,
    maxRetries,
    logLevel: 'off',
    ...(mode !== undefined ? { defaultQuery: { mode } } : {}),
    fetch: (url: string | URL | Request, init?: RequestInit) => {
      sent++;
      return fetch(url, init);
    },
  });
  return { client, sent: () => sent };
}

function failure(error: unknown): string {
  const e = error as { status?: unknown; constructor: { name: string } };
  return `${e.constructor.name}${typeof e.status === 'number' ? ` ${e.status}` : ''}`;
}

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

/** Streams the echo through ResponseStream and reports how it ended. */
async function streamed(port: number, mode: string, extra: Record<string, unknown> = {}): Promise<{ outcome: string; response: OpenAI.Responses.Response | undefined; events: string[] }> {
  const { client } = clientFor(port, mode);
  const events: string[] = [];
  const stream = client.responses.stream({ ...ASK, ...extra });
  stream.on('event', (event) => events.push(event.type));
  try {
    return { outcome: 'resolves', response: await stream.finalResponse(), events };
  } catch (error) {
    return { outcome: `throws ${failure(error)}: ${String((error as Error).message).slice(0, 60)}`, response: undefined, events };
  }
}

const SCENARIOS: Readonly<Record<MessagesMode, (port: number) => Promise<string>>> = {
  'stream-cut': async (port) => (await streamed(port, 'stream-cut')).outcome,
  'malformed-delta': async (port) => (await streamed(port, 'malformed-delta')).outcome,
  'truncated-tool-args': async (port) => {
    const { outcome, response } = await streamed(port, 'truncated-tool-args', { tools: TOOLS });
    const call = response?.output[0] as { arguments?: string } | undefined;
    if (!call) return outcome;
    let parses = true;
    try {
      JSON.parse(call.arguments ?? '');
    } catch {
      parses = false;
    }
    return `resolves; arguments ${parses ? 'parse' : 'do not parse as JSON'}`;
  },
  'stop-reason-lie': async (port) => {
    const { outcome, response } = await streamed(port, 'stop-reason-lie');
    return response ? `resolves with status ${response.status} (${String(response.incomplete_details?.reason)}) and the whole reply` : outcome;
  },
  'usage-lie': async (port) => {
    const { response } = await streamed(port, 'usage-lie');
    const u = response?.usage;
    return `resolves with input_tokens ${String(u?.input_tokens)}, total_tokens ${(u?.total_tokens ?? 0) < (u?.output_tokens ?? 0) ? 'below output_tokens' : String(u?.total_tokens)}`;
  },
  'rate-limited': async (port) => {
    const { client, sent } = clientFor(port, 'rate-limited', 2);
    const outcome = await client.responses.create(ASK).then(() => 'resolves', failure);
    return `throws ${outcome} after ${sent()} requests`;
  },
  overloaded: async (port) => {
    const { client, sent } = clientFor(port, 'overloaded', 2);
    const outcome = await client.responses.create(ASK).then(() => 'resolves', failure);
    return `throws ${outcome} after ${sent()} requests`;
  },
  'unknown-event': async (port) => {
    const { outcome, events } = await streamed(port, 'unknown-event');
    return `${outcome}; the unknown event ${events.includes('response.chaos_unknown') ? 'reaches the event listener' : 'is dropped'}`;
  },
  'duplicate-final-event': async (port) => {
    const { outcome, events } = await streamed(port, 'duplicate-final-event');
    return `${outcome}; response.completed seen ${events.filter((e) => e === 'response.completed').length} times`;
  },
};

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
  for (const mode of MESSAGES_MODES) {
    const observed = await SCENARIOS[mode](port);
    t.equal(observed, documented.get(mode), `${mode}: ${observed}`);
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
