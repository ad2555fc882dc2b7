// Twin content, agent family: an Anthropic Messages API at /llm/v1/messages
// that needs no model. Request validation, the deterministic echo both hosts
// answer with (a text block, or a tool_use block calling the first tool), its
// stream events (message_start … content_block_delta … message_stop) and the
// Anthropic error shape; the chaos endpoint changes only its mode's lie.
import { jsonBody } from '../../primitives/json.js';
import { oneOf } from '../../primitives/params.js';
import { seededBytes } from '../../primitives/seed.js';
import { countTokens } from './llm.js';

export const MESSAGES_PATH = '/llm/v1/messages';

export const MESSAGES_EXAMPLE = {
  method: 'POST',
  body: { type: 'application/json', text: '{"model":"chaos","max_tokens":256,"stream":true,"messages":[{"role":"user","content":"Hello"}]}' },
} as const;

export const MESSAGES_MODES = [
  'stream-cut', 'malformed-delta', 'truncated-tool-args', 'stop-reason-lie', 'usage-lie', 'rate-limited', 'overloaded', 'unknown-event', 'duplicate-final-event',
] as const;
export type MessagesMode = (typeof MESSAGES_MODES)[number];
export const MESSAGES_MODE_PARAM = oneOf(MESSAGES_MODES, { default: 'stream-cut', description: 'which lie' });

const MAX_REPLY_CHARS = 2000;
const DELTA_CHARS = 16;

export interface MessagesRequest {
  readonly model: string;
  readonly lastUserText: string;
  readonly promptText: string;
  readonly stream: boolean;
  readonly tool: string | undefined;
}

export type MessagesParse = { readonly ok: true; readonly request: MessagesRequest } | { readonly ok: false; readonly message: string };

/** Anthropic's error body: `{type: "error", error: {type, message}}`. */
export function anthropicError(type: string, message: string): Buffer {
  return jsonBody({ type: 'error', error: { type, message } });
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const block of content) {
    if (typeof block !== 'object' || block === null) return undefined;
    const b = block as Record<string, unknown>;
    if (typeof b.type !== 'string') return undefined;
    if (b.type === 'text' && typeof b.text === 'string') text += b.text;
  }
  return text;
}

export function parseMessagesRequest(body: Buffer): MessagesParse {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, message: 'The request body is not valid JSON.' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'The request body must be a JSON object.' };
  const o = value as Record<string, unknown>;
  if (typeof o.model !== 'string' || o.model === '') return { ok: false, message: 'model: Field required' };
  if (typeof o.max_tokens !== 'number' || !Number.isInteger(o.max_tokens) || o.max_tokens < 1) return { ok: false, message: 'max_tokens: a positive integer is required' };
  if (!Array.isArray(o.messages) || o.messages.length === 0) return { ok: false, message: 'messages: at least one message is required' };
  let lastUserText = '';
  let promptText = o.system === undefined ? '' : `${textOf(o.system) ?? ''} `;
  for (const [i, m] of o.messages.entries()) {
    const message = m as Record<string, unknown> | null;
    if (typeof message !== 'object' || message === null || (message.role !== 'user' && message.role !== 'assistant')) {
      return { ok: false, message: `messages.${i}.role: Input should be 'user' or 'assistant'` };
    }
    const text = textOf(message.content);
    if (text === undefined) return { ok: false, message: `messages.${i}.content: a string or a list of content blocks is required` };
    if (message.role === 'user') lastUserText = text;
    promptText += `${text} `;
  }
  if (o.stream !== undefined && typeof o.stream !== 'boolean') return { ok: false, message: 'stream: Input should be a valid boolean' };
  let tool: string | undefined;
  if (o.tools !== undefined) {
    if (!Array.isArray(o.tools)) return { ok: false, message: 'tools: Input should be a valid list' };
    for (const [i, t] of o.tools.entries()) {
      if (typeof (t as { name?: unknown } | null)?.name !== 'string') return { ok: false, message: `tools.${i}.name: Field required` };
    }
    const choice = (o.tool_choice as { type?: unknown } | undefined)?.type;
    tool = choice === 'none' ? undefined : (o.tools[0] as { name: string } | undefined)?.name;
  }
  return { ok: true, request: { model: o.model, lastUserText, promptText, stream: o.stream === true, tool } };
}

export interface MessagesUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
}

/** The answer both hosts derive from. */
export interface EchoMessage {
  readonly id: string;
  readonly model: string;
  /** The text reply, or the tool call's input as JSON text. */
  readonly text: string;
  readonly toolUse: { readonly id: string; readonly name: string } | undefined;
  readonly stopReason: 'end_turn' | 'tool_use' | 'max_tokens';
  readonly usage: MessagesUsage;
}

export function echoMessage(request: MessagesRequest, body: Buffer): EchoMessage {
  const digest = seededBytes(`messages:${body.toString('latin1')}`, 12).toString('hex');
  const reply = `Echo: ${request.lastUserText}`.slice(0, MAX_REPLY_CHARS);
  const toolUse = request.tool === undefined ? undefined : { id: `toolu_${digest}`, name: request.tool };
  const text = toolUse ? JSON.stringify({ text: reply }) : reply;
  return {
    id: `msg_${digest}`,
    model: request.model,
    text,
    toolUse,
    stopReason: toolUse ? 'tool_use' : 'end_turn',
    usage: { input_tokens: countTokens(request.promptText), output_tokens: countTokens(text) },
  };
}

function block(m: EchoMessage): Record<string, unknown> {
  return m.toolUse ? { type: 'tool_use', id: m.toolUse.id, name: m.toolUse.name, input: JSON.parse(m.text) as unknown } : { type: 'text', text: m.text };
}

/** The non-streaming Message object. */
export function messageObject(m: EchoMessage): Record<string, unknown> {
  return { id: m.id, type: 'message', role: 'assistant', model: m.model, content: [block(m)], stop_reason: m.stopReason, stop_sequence: null, usage: m.usage };
}

export interface StreamEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** The stream's events in order: message_start, content_block_start, ping, the deltas, content_block_stop, message_delta, message_stop. */
export function messageEvents(m: EchoMessage): StreamEvent[] {
  const e = (event: string, data: Record<string, unknown>): StreamEvent => ({ event, data: { type: event, ...data } });
  const start = m.toolUse ? { type: 'tool_use', id: m.toolUse.id, name: m.toolUse.name, input: {} } : { type: 'text', text: '' };
  const events = [
    e('message_start', {
      message: { id: m.id, type: 'message', role: 'assistant', model: m.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: m.usage.input_tokens, output_tokens: 1 } },
    }),
    e('content_block_start', { index: 0, content_block: start }),
    e('ping', {}),
  ];
  for (let i = 0; i < m.text.length; i += DELTA_CHARS) {
    const piece = m.text.slice(i, i + DELTA_CHARS);
    events.push(e('content_block_delta', { index: 0, delta: m.toolUse ? { type: 'input_json_delta', partial_json: piece } : { type: 'text_delta', text: piece } }));
  }
  events.push(
    e('content_block_stop', { index: 0 }),
    e('message_delta', { delta: { stop_reason: m.stopReason, stop_sequence: null }, usage: { output_tokens: m.usage.output_tokens } }),
    e('message_stop', {}),
  );
  return events;
}

export function eventText(event: StreamEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}
