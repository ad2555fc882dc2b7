// The official @anthropic-ai/sdk SDK as a real client of /llm/v1/messages: its client, and what it does
// against each chaos mode, in a sentence. tests/integration/agent/llm-messages-sdk.test.ts checks
// the sentences against docs/llm.md; the client scorecard (scripts/scorecard/sdk-table.ts)
// publishes them in docs/clients.md from the same runs.
import Anthropic from '@anthropic-ai/sdk';
import type { MessagesMode } from '../../shared/content/agent/index.js';
import { countingFetch, failure } from './sdk-common.js';

export const ASK = { model: 'chaos', max_tokens: 256, messages: [{ role: 'user' as const, content: 'hello there chaos' }] };
export const TOOLS = [{ name: 'lookup', input_schema: { type: 'object' as const, properties: { text: { type: 'string' } } } }];

export interface Counted {
  readonly client: Anthropic;
  /** Requests the client sent. */
  readonly sent: () => number;
}

export function clientFor(port: number, mode?: string, maxRetries = 0): Counted {
  const counted = countingFetch();
  const client = new Anthropic({
    apiKey: 'test-key',
    baseURL: `http://127.0.0.1:${port}/llm`,
    maxRetries,
    logLevel: 'off',
    ...(mode !== undefined ? { defaultQuery: { mode } } : {}),
    fetch: counted.fetch,
  });
  return { client, sent: counted.sent };
}

export { failure };


export type Scenario = (port: number) => Promise<string>;

/** Streams the echo through MessageStream and reports how it ended. */
export async function streamed(port: number, mode: string, extra: Record<string, unknown> = {}): Promise<{ outcome: string; message: Anthropic.Message | undefined; events: string[] }> {
  const { client } = clientFor(port, mode);
  const events: string[] = [];
  const stream = client.messages.stream({ ...ASK, ...extra });
  stream.on('streamEvent', (event) => events.push(event.type));
  try {
    const message = await stream.finalMessage();
    return { outcome: 'resolves', message, events };
  } catch (error) {
    return { outcome: `throws ${failure(error)}: ${String((error as Error).message).slice(0, 60)}`, message: undefined, events };
  }
}

export const ANTHROPIC_SDK_SCENARIOS: Readonly<Record<MessagesMode, Scenario>> = {
  'stream-cut': async (port) => (await streamed(port, 'stream-cut')).outcome,
  'malformed-delta': async (port) => (await streamed(port, 'malformed-delta')).outcome,
  'truncated-tool-args': async (port) => {
    const { outcome, message } = await streamed(port, 'truncated-tool-args', { tools: TOOLS });
    return message ? `resolves; input ${JSON.stringify((message.content[0] as { input: unknown }).input)}` : (outcome.split(':')[0] as string);
  },
  'stop-reason-lie': async (port) => {
    const { message } = await streamed(port, 'stop-reason-lie');
    return `resolves with stop_reason ${String(message?.stop_reason)} and the whole reply`;
  },
  'usage-lie': async (port) => {
    const { message } = await streamed(port, 'usage-lie');
    return `resolves with input_tokens ${String(message?.usage.input_tokens)}, output_tokens ${(message?.usage.output_tokens ?? 0) >= 100_000 ? '≥ 100000' : String(message?.usage.output_tokens)}`;
  },
  'rate-limited': async (port) => {
    const { client, sent } = clientFor(port, 'rate-limited', 2);
    const outcome = await client.messages.create(ASK).then(() => 'resolves', failure);
    return `throws ${outcome} after ${sent()} requests`;
  },
  overloaded: async (port) => {
    const { client, sent } = clientFor(port, 'overloaded', 2);
    const started = performance.now();
    const outcome = await client.messages.create(ASK).then(() => 'resolves', failure);
    const waited = performance.now() - started >= 1900 ? 'waiting the 1 s retry-after each time' : 'without waiting';
    return `throws ${outcome} after ${sent()} requests, ${waited}`;
  },
  'unknown-event': async (port) => {
    const { outcome, events } = await streamed(port, 'unknown-event');
    return `${outcome.split(':')[0] as string}; the unknown event ${events.includes('chaos_unknown_event') ? 'reaches streamEvent' : 'is dropped'}`;
  },
  'duplicate-final-event': async (port) => {
    const { outcome, events } = await streamed(port, 'duplicate-final-event');
    return `${outcome.split(':')[0] as string}; message_stop seen ${events.filter((e) => e === 'message_stop').length} times`;
  },
};
