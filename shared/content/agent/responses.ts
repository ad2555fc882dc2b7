// Twin content, agent family: the OpenAI Responses API at /llm/v1/responses,
// with no model. Request validation, the deterministic echo both hosts answer
// with (an output_text message, or a function_call of the first tool), its
// stream events (response.created … response.output_text.delta …
// response.completed), and OpenAI's error shape; the chaos endpoint changes
// only its mode's lie. The modes are the Messages API's (anthropic.ts).
import { oneOf } from '../../primitives/params.js';
import { seededBytes } from '../../primitives/seed.js';
import { MESSAGES_MODES, type StreamEvent } from './anthropic.js';
import { countTokens, openAiJsonObject } from './llm.js';

export const RESPONSES_PATH = '/llm/v1/responses';

export const RESPONSES_EXAMPLE = {
  method: 'POST',
  body: { type: 'application/json', text: '{"model":"chaos","stream":true,"input":"Hello"}' },
} as const;

export const RESPONSES_MODE_PARAM = oneOf(MESSAGES_MODES, { default: 'stream-cut', description: 'which lie' });

const MAX_REPLY_CHARS = 2000;
const DELTA_CHARS = 16;

export interface ResponsesRequest {
  readonly model: string;
  readonly lastUserText: string;
  readonly promptText: string;
  readonly stream: boolean;
  readonly tool: string | undefined;
}

export type ResponsesParse = { readonly ok: true; readonly request: ResponsesRequest } | { readonly ok: false; readonly message: string; readonly param: string | null };

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const part of content) {
    const p = part as Record<string, unknown> | null;
    if (typeof p !== 'object' || p === null || typeof p.type !== 'string') return undefined;
    if ((p.type === 'input_text' || p.type === 'output_text') && typeof p.text === 'string') text += p.text;
  }
  return text;
}

export function parseResponsesRequest(body: Buffer): ResponsesParse {
  const opened = openAiJsonObject(body);
  if (!opened.ok) return opened;
  const o = opened.o;
  if (typeof o.model !== 'string' || o.model === '') return { ok: false, message: "Missing required parameter: 'model'.", param: 'model' };
  let lastUserText = '';
  let promptText = typeof o.instructions === 'string' ? `${o.instructions} ` : '';
  if (typeof o.input === 'string') {
    lastUserText = o.input;
    promptText += o.input;
  } else if (Array.isArray(o.input) && o.input.length > 0) {
    for (const [i, item] of o.input.entries()) {
      const m = item as Record<string, unknown> | null;
      if (typeof m !== 'object' || m === null || typeof m.role !== 'string' || !['user', 'assistant', 'system', 'developer'].includes(m.role)) {
        return { ok: false, message: `Invalid value for 'input[${i}].role'.`, param: `input[${i}].role` };
      }
      const text = textOf(m.content);
      if (text === undefined) return { ok: false, message: `Invalid value for 'input[${i}].content'.`, param: `input[${i}].content` };
      if (m.role === 'user') lastUserText = text;
      promptText += `${text} `;
    }
  } else {
    return { ok: false, message: "Missing required parameter: 'input' (a string or a non-empty list of messages).", param: 'input' };
  }
  if (o.stream !== undefined && typeof o.stream !== 'boolean') return { ok: false, message: "Invalid type for 'stream': expected a boolean.", param: 'stream' };
  let tool: string | undefined;
  if (o.tools !== undefined) {
    if (!Array.isArray(o.tools)) return { ok: false, message: "Invalid type for 'tools': expected an array.", param: 'tools' };
    for (const [i, t] of o.tools.entries()) {
      if (typeof (t as { name?: unknown } | null)?.name !== 'string') return { ok: false, message: `Missing required parameter: 'tools[${i}].name'.`, param: `tools[${i}].name` };
    }
    tool = o.tool_choice === 'none' ? undefined : (o.tools[0] as { name: string } | undefined)?.name;
  }
  return { ok: true, request: { model: o.model, lastUserText, promptText, stream: o.stream === true, tool } };
}

export interface EchoResponse {
  readonly id: string;
  readonly itemId: string;
  readonly callId: string;
  readonly model: string;
  readonly createdAt: number;
  /** The reply, or the function call's arguments as JSON text. */
  readonly text: string;
  readonly tool: string | undefined;
  /** completed, or (a lie) incomplete with a reason. */
  readonly incomplete: string | undefined;
  readonly usage: { readonly input_tokens: number; readonly output_tokens: number; readonly total_tokens: number };
}

export function echoResponse(request: ResponsesRequest, body: Buffer): EchoResponse {
  const digest = seededBytes(`responses:${body.toString('latin1')}`, 24).toString('hex');
  const reply = `Echo: ${request.lastUserText}`.slice(0, MAX_REPLY_CHARS);
  const text = request.tool ? JSON.stringify({ text: reply }) : reply;
  const input = countTokens(request.promptText);
  const output = countTokens(text);
  return {
    id: `resp_${digest.slice(0, 24)}`,
    itemId: `${request.tool ? 'fc' : 'msg'}_${digest.slice(24, 48)}`,
    callId: `call_${digest.slice(0, 16)}`,
    model: request.model,
    createdAt: Math.floor(Date.now() / 1000),
    text,
    tool: request.tool,
    incomplete: undefined,
    usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
  };
}

function item(r: EchoResponse, done: boolean): Record<string, unknown> {
  const status = done ? 'completed' : 'in_progress';
  if (r.tool) return { type: 'function_call', id: r.itemId, call_id: r.callId, name: r.tool, arguments: done ? r.text : '', status };
  return { type: 'message', id: r.itemId, status, role: 'assistant', content: done ? [part(r.text)] : [] };
}

function part(text: string): Record<string, unknown> {
  return { type: 'output_text', text, annotations: [] };
}

/** The Response object: in progress (no output yet), or finished. */
export function responseObject(r: EchoResponse, done: boolean): Record<string, unknown> {
  return {
    id: r.id,
    object: 'response',
    created_at: r.createdAt,
    status: !done ? 'in_progress' : r.incomplete ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: done && r.incomplete ? { reason: r.incomplete } : null,
    model: r.model,
    output: done ? [item(r, true)] : [],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: done ? { ...r.usage, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } : null,
  };
}

/** The stream's events in order, numbered by sequence_number. */
export function responseEvents(r: EchoResponse): StreamEvent[] {
  const events: StreamEvent[] = [];
  const e = (type: string, data: Record<string, unknown>): void => {
    events.push({ event: type, data: { type, sequence_number: events.length, ...data } });
  };
  e('response.created', { response: responseObject(r, false) });
  e('response.in_progress', { response: responseObject(r, false) });
  e('response.output_item.added', { output_index: 0, item: item(r, false) });
  const pieces: string[] = [];
  for (let i = 0; i < r.text.length; i += DELTA_CHARS) pieces.push(r.text.slice(i, i + DELTA_CHARS));
  if (r.tool) {
    for (const delta of pieces) e('response.function_call_arguments.delta', { item_id: r.itemId, output_index: 0, delta });
    e('response.function_call_arguments.done', { item_id: r.itemId, output_index: 0, arguments: r.text });
  } else {
    e('response.content_part.added', { item_id: r.itemId, output_index: 0, content_index: 0, part: part('') });
    for (const delta of pieces) e('response.output_text.delta', { item_id: r.itemId, output_index: 0, content_index: 0, delta, logprobs: [] });
    e('response.output_text.done', { item_id: r.itemId, output_index: 0, content_index: 0, text: r.text, logprobs: [] });
    e('response.content_part.done', { item_id: r.itemId, output_index: 0, content_index: 0, part: part(r.text) });
  }
  e('response.output_item.done', { output_index: 0, item: item(r, true) });
  e(r.incomplete ? 'response.incomplete' : 'response.completed', { response: responseObject(r, true) });
  return events;
}
