// The official openai SDK as a real client of /llm/v1/responses: its client, and what it does
// against each chaos mode, in a sentence. tests/integration/agent/llm-responses-sdk.test.ts checks
// the sentences against docs/llm.md; the client scorecard (scripts/scorecard/sdk-table.ts)
// publishes them in docs/clients.md from the same runs.
import OpenAI from 'openai';
import type { MessagesMode } from '../../shared/content/agent/index.js';
import { countingFetch, failure } from './sdk-common.js';

export const ASK = { model: 'chaos', input: 'hello there chaos' };
export const TOOLS = [{ type: 'function' as const, name: 'lookup', parameters: { type: 'object', properties: { text: { type: 'string' } } }, strict: false }];

export function clientFor(port: number, mode?: string, maxRetries = 0): { client: OpenAI; sent: () => number } {
  const counted = countingFetch();
  const client = new OpenAI({
    apiKey: 'test-key',
    baseURL: `http://127.0.0.1:${port}/llm/v1`,
    maxRetries,
    logLevel: 'off',
    ...(mode !== undefined ? { defaultQuery: { mode } } : {}),
    fetch: counted.fetch,
  });
  return { client, sent: counted.sent };
}

export { failure };


/** Streams the echo through ResponseStream and reports how it ended. */
export async function streamed(port: number, mode: string, extra: Record<string, unknown> = {}): Promise<{ outcome: string; response: OpenAI.Responses.Response | undefined; events: string[] }> {
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

export const OPENAI_SDK_SCENARIOS: Readonly<Record<MessagesMode, (port: number) => Promise<string>>> = {
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
