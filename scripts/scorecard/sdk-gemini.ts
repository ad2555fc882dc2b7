// The official @google/genai SDK as a real client of the Gemini API: its client, and what it does
// against each chaos mode, in a sentence. tests/integration/agent/llm-gemini-sdk.test.ts checks
// the sentences against docs/llm.md; the client scorecard (scripts/scorecard/sdk-table.ts)
// publishes them in docs/clients.md from the same runs.
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import type { MessagesMode } from '../../shared/content/agent/index.js';

export const ASK = { model: 'chaos', contents: 'hello there chaos' };
export const TOOLS = { tools: [{ functionDeclarations: [{ name: 'lookup', description: 'x' }] }] };

export function clientFor(port: number, mode?: string): GoogleGenAI {
  return new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: `http://127.0.0.1:${port}/llm`, apiVersion: 'v1beta', ...(mode !== undefined ? { headers: { 'X-Chaos-Mode': mode } } : {}) } });
}

export function failure(error: unknown): string {
  const e = error as { status?: unknown; message?: unknown; constructor: { name: string } };
  return `${e.constructor.name}${typeof e.status === 'number' ? ` ${e.status}` : ''}: ${String(e.message).slice(0, 50).trimEnd()}`;
}

/** Every chunk of a stream, or how it failed. */
export async function collect(client: GoogleGenAI, extra: Record<string, unknown> = {}): Promise<{ chunks: GenerateContentResponse[]; outcome: string }> {
  const chunks: GenerateContentResponse[] = [];
  try {
    for await (const chunk of await client.models.generateContentStream({ ...ASK, ...extra })) chunks.push(chunk);
    return { chunks, outcome: 'resolves' };
  } catch (error) {
    return { chunks, outcome: `throws ${failure(error)}` };
  }
}


export const GEMINI_SDK_SCENARIOS: Readonly<Record<MessagesMode, (port: number) => Promise<string>>> = {
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
