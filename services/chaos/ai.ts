// One call to an OpenAI-compatible chat-completions API (AI_BASE_URL,
// AI_API_KEY, AI_MODEL). Bounded in time (AI_TIMEOUT_MS, 10 s at most) and in
// size, cancelled when the client leaves, and it never throws: every failure
// becomes a reason the caller reports in X-Chaos-Ai-Fallback-Reason.
import type { Config } from '../../shared/config/config.js';

/** One message of an OpenAI-compatible chat request. */
export interface ChatMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

export type AiFailure = 'ai-error' | 'timeout';

export type ModelAnswer =
  | { readonly kind: 'content'; readonly content: string }
  | { readonly kind: 'failed'; readonly reason: AiFailure }
  /** The client left first: nothing is to be sent. */
  | { readonly kind: 'aborted' };

/** A chat-completions answer carrying one discovery document is a few KB; more is not an answer. */
const MAX_ANSWER_BYTES = 256 * 1024;

export async function askModel(ai: Config['ai'], messages: readonly ChatMessage[], clientGone: AbortSignal): Promise<ModelAnswer> {
  if (ai.baseUrl === undefined || ai.model === undefined) return { kind: 'failed', reason: 'ai-error' };
  const timeout = AbortSignal.timeout(ai.timeoutMs);
  const signal = AbortSignal.any([timeout, clientGone]);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (ai.apiKey !== undefined) headers.authorization = `Bearer ${ai.apiKey}`;
  try {
    const response = await fetch(`${ai.baseUrl}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: ai.model, messages }),
      signal,
      redirect: 'error',
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { kind: 'failed', reason: 'ai-error' };
    }
    const text = await readCapped(response, MAX_ANSWER_BYTES);
    const content = text === undefined ? undefined : messageContent(text);
    return content === undefined ? { kind: 'failed', reason: 'ai-error' } : { kind: 'content', content };
  } catch {
    // The signal also cuts a body still arriving; which of its sources fired decides the outcome.
    if (clientGone.aborted) return { kind: 'aborted' };
    if (timeout.aborted) return { kind: 'failed', reason: 'timeout' };
    return { kind: 'failed', reason: 'ai-error' };
  }
}

async function readCapped(response: Response, max: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `choices[0].message.content` of a chat-completions response, if it is one. */
function messageContent(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const choices = (parsed as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return undefined;
  const content = (choices[0] as { message?: { content?: unknown } } | undefined)?.message?.content;
  return typeof content === 'string' ? content : undefined;
}
