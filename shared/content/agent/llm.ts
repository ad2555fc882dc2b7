// Twin content, agent family: the OpenAI-compatible chat completion at
// /llm/v1/chat/completions. Request validation, the deterministic echo both
// hosts answer with, its chunks and usage, and the OpenAI error shape: the
// chaos endpoint starts from the same objects and changes only its mode's lie.
import { jsonBody } from '../../primitives/json.js';
import { oneOf } from '../../primitives/params.js';
import { seededBytes } from '../../primitives/seed.js';

export const LLM_PATH = '/llm/v1/chat/completions';

/** The catalog's ready request on both hosts: a streamed chat completion (what stream-cut, the default, cuts). */
export const LLM_EXAMPLE = {
  body: { type: 'application/json', text: '{"model":"chaos","stream":true,"messages":[{"role":"user","content":"Hello"}]}' },
} as const;

export const LLM_MODES = ['stream-cut', 'truncated-tool-args', 'rate-limited', 'overloaded', 'finish-reason-lie', 'usage-lie'] as const;
export type LlmMode = (typeof LLM_MODES)[number];
/** One parameter spec for the query and the X-Chaos-Mode header alike. */
export const LLM_MODE_PARAM = oneOf(LLM_MODES, { default: 'stream-cut', description: 'which lie; X-Chaos-Mode names it too (the query wins)' });

/** Largest request body read; beyond it the answer is 413 (OpenAI-style error). */
export const MAX_LLM_BODY = 64 * 1024;
/** Longest echoed reply, in characters: the echo is bounded whatever the prompt. */
const MAX_REPLY_CHARS = 2000;
/** Characters per streamed content delta. */
const DELTA_CHARS = 16;

export interface ChatTool {
  readonly name: string;
}

export interface ChatRequest {
  readonly model: string;
  /** The last user message's text: what the echo repeats. */
  readonly lastUserText: string;
  /** Every message's text, for prompt_tokens. */
  readonly promptText: string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly tools: readonly ChatTool[];
  /** False when tool_choice is "none". */
  readonly toolsAllowed: boolean;
}

export type ChatParse = { readonly ok: true; readonly request: ChatRequest } | { readonly ok: false; readonly message: string; readonly param: string | null };

/** The OpenAI error object. */
export function openAiErrorObject(message: string, type: string, param: string | null = null, code: string | null = null): object {
  return { error: { message, type, param, code } };
}

/** The OpenAI error body. */
export function openAiError(message: string, type: string, param: string | null = null, code: string | null = null): Buffer {
  return jsonBody(openAiErrorObject(message, type, param, code));
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (content === null) return '';
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const part of content) {
    if (typeof part !== 'object' || part === null) return undefined;
    const p = part as Record<string, unknown>;
    if (p.type === 'text' && typeof p.text === 'string') text += p.text;
  }
  return text;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

export type OpenAiBodyRefusal = { readonly ok: false; readonly message: string; readonly param: null };

/** An OpenAI-shape request body as a JSON object, or OpenAI's refusal of it (both OpenAI shapes open a body this way). */
export function openAiJsonObject(body: Buffer): { readonly ok: true; readonly o: Record<string, unknown> } | OpenAiBodyRefusal {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, message: 'We could not parse the JSON body of your request.', param: null };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'The body must be a JSON object.', param: null };
  return { ok: true, o: value as Record<string, unknown> };
}

/** Parses and validates a chat completion request body (the subset the echo needs, checked as OpenAI checks it). */
export function parseChatRequest(body: Buffer): ChatParse {
  const opened = openAiJsonObject(body);
  if (!opened.ok) return opened;
  const o = opened.o;
  if (typeof o.model !== 'string' || o.model === '') return { ok: false, message: "'model' is a required string.", param: 'model' };
  if (!Array.isArray(o.messages) || o.messages.length === 0) return { ok: false, message: "'messages' must be a non-empty array.", param: 'messages' };
  let lastUserText = '';
  let promptText = '';
  for (const [i, m] of o.messages.entries()) {
    const message = m as Record<string, unknown> | null;
    if (typeof message !== 'object' || message === null || typeof message.role !== 'string' || !ROLES.has(message.role)) {
      return { ok: false, message: `messages[${i}] needs a role of system, developer, user, assistant or tool.`, param: `messages.[${i}].role` };
    }
    const text = textOf(message.content);
    if (text === undefined) return { ok: false, message: `messages[${i}].content must be a string or an array of text parts.`, param: `messages.[${i}].content` };
    if (message.role === 'user') lastUserText = text;
    promptText += `${text} `;
  }
  if (o.stream !== undefined && typeof o.stream !== 'boolean') return { ok: false, message: "'stream' must be a boolean.", param: 'stream' };
  const tools: ChatTool[] = [];
  if (o.tools !== undefined) {
    if (!Array.isArray(o.tools)) return { ok: false, message: "'tools' must be an array.", param: 'tools' };
    for (const [i, t] of o.tools.entries()) {
      const fn = (t as { function?: { name?: unknown } } | null)?.function;
      if (typeof fn?.name !== 'string') return { ok: false, message: `tools[${i}].function.name is required.`, param: `tools.[${i}].function.name` };
      tools.push({ name: fn.name });
    }
  }
  const includeUsage = (o.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  return {
    ok: true,
    request: { model: o.model, lastUserText, promptText, stream: o.stream === true, includeUsage, tools, toolsAllowed: o.tool_choice !== 'none' },
  };
}

/** A token count anyone can recompute: whitespace-separated words. */
export function countTokens(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** The answer both hosts derive from: the echo, or a call of the request's first tool with the echo as argument. */
export interface Completion {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly content: string | null;
  readonly toolCall: ToolCall | undefined;
  readonly finishReason: 'stop' | 'tool_calls' | 'length';
  readonly usage: Usage;
}

/** Deterministic in the request: the same body gets the same id and text (created is the clock's). */
export function echoCompletion(request: ChatRequest, body: Buffer): Completion {
  const digest = seededBytes(`llm:${body.toString('latin1')}`, 12).toString('hex');
  const reply = `Echo: ${request.lastUserText}`.slice(0, MAX_REPLY_CHARS);
  const tool = request.toolsAllowed ? request.tools[0] : undefined;
  const toolCall: ToolCall | undefined = tool && {
    id: `call_${digest.slice(0, 16)}`,
    type: 'function',
    function: { name: tool.name, arguments: JSON.stringify({ text: reply }) },
  };
  const completionTokens = countTokens(toolCall ? toolCall.function.arguments : reply);
  const promptTokens = countTokens(request.promptText);
  return {
    id: `chatcmpl-${digest}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    content: toolCall ? null : reply,
    toolCall,
    finishReason: toolCall ? 'tool_calls' : 'stop',
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/** The non-streaming `chat.completion` object. */
export function completionObject(c: Completion): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: c.content, refusal: null };
  if (c.toolCall) message.tool_calls = [c.toolCall];
  return {
    id: c.id,
    object: 'chat.completion',
    created: c.created,
    model: c.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: c.finishReason }],
    usage: c.usage,
  };
}

function chunk(c: Completion, delta: Record<string, unknown>, finishReason: string | null): Record<string, unknown> {
  return { id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] };
}

/**
 * The `chat.completion.chunk` objects of a streamed answer, in order: the role,
 * the content (or tool-call argument) deltas, the finish, and the usage chunk
 * (empty choices) when `withUsage`. `data: [DONE]` is the caller's.
 */
export function completionChunks(c: Completion, withUsage: boolean): Record<string, unknown>[] {
  const chunks = [chunk(c, { role: 'assistant', content: c.toolCall ? null : '' }, null)];
  if (c.toolCall) {
    const { id, type, function: fn } = c.toolCall;
    chunks.push(chunk(c, { tool_calls: [{ index: 0, id, type, function: { name: fn.name, arguments: '' } }] }, null));
    for (const piece of pieces(fn.arguments)) chunks.push(chunk(c, { tool_calls: [{ index: 0, function: { arguments: piece } }] }, null));
  } else {
    for (const piece of pieces(c.content ?? '')) chunks.push(chunk(c, { content: piece }, null));
  }
  chunks.push(chunk(c, {}, c.finishReason));
  if (withUsage) chunks.push({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [], usage: c.usage });
  return chunks;
}

function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += DELTA_CHARS) out.push(text.slice(i, i + DELTA_CHARS));
  return out;
}

/** One server-sent event carrying a JSON object. */
export function sseEvent(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}
export const SSE_DONE = 'data: [DONE]\n\n';
