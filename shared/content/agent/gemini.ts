// Twin content, agent family: the Gemini API's generateContent and
// streamGenerateContent at /llm/v1beta/models/<model>:<method>, with no model.
// Request validation, the deterministic echo both hosts answer with (a text
// part, or a functionCall of the first declared function), its SSE chunks
// (alt=sse: data lines only, the last one with finishReason and usage) and
// Google's error shape; the chaos endpoint changes only its mode's lie.
import { jsonBody } from '../../primitives/json.js';
import { oneOf, str } from '../../primitives/params.js';
import { seededBytes } from '../../primitives/seed.js';
import { MESSAGES_MODES } from './anthropic.js';
import { countTokens } from './llm.js';

export const GEMINI_PATH = '/llm/v1beta/models/{call}';

export const GEMINI_PARAMS = {
  call: str({ in: 'path', minLength: 1, maxLength: 200, required: true, description: '`<model>:generateContent` or `<model>:streamGenerateContent`' }),
  mode: oneOf(MESSAGES_MODES, { default: 'stream-cut', description: 'which lie; X-Chaos-Mode names it too (the query wins)' }),
};

export const GEMINI_EXAMPLE = {
  method: 'POST',
  target: '/llm/v1beta/models/chaos:streamGenerateContent?alt=sse',
  body: { type: 'application/json', text: '{"contents":[{"role":"user","parts":[{"text":"Hello"}]}]}' },
} as const;

const MAX_REPLY_CHARS = 2000;
const DELTA_CHARS = 16;

export interface GeminiRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly lastUserText: string;
  readonly promptText: string;
  readonly tool: string | undefined;
}

export type GeminiParse = { readonly ok: true; readonly request: GeminiRequest } | { readonly ok: false; readonly status: 400 | 404; readonly message: string };

/** Google's error body: `{error: {code, message, status}}`. */
export function googleError(code: number, status: string, message: string, details?: readonly object[]): Buffer {
  return jsonBody({ error: { code, message, status, ...(details ? { details } : {}) } });
}

/** The model and method from the path's last segment, then the body. */
export function parseGeminiRequest(call: string, body: Buffer): GeminiParse {
  const named = /^([A-Za-z0-9._-]{1,100}):(generateContent|streamGenerateContent)$/.exec(decodeURIComponent(call));
  if (!named) return { ok: false, status: 404, message: `Method not found: models/${call.slice(0, 100)} (use <model>:generateContent or <model>:streamGenerateContent)` };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, status: 400, message: 'Invalid JSON payload received.' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, status: 400, message: 'Invalid JSON payload received: an object is required.' };
  const o = value as Record<string, unknown>;
  if (!Array.isArray(o.contents) || o.contents.length === 0) return { ok: false, status: 400, message: '* GenerateContentRequest.contents: contents is not specified' };
  let lastUserText = '';
  let promptText = '';
  for (const [i, c] of o.contents.entries()) {
    const content = c as { role?: unknown; parts?: unknown } | null;
    if (typeof content !== 'object' || content === null || !Array.isArray(content.parts)) return { ok: false, status: 400, message: `* GenerateContentRequest.contents[${i}].parts: required` };
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model') return { ok: false, status: 400, message: `* GenerateContentRequest.contents[${i}].role: user or model` };
    const text = content.parts.map((p) => (typeof (p as { text?: unknown } | null)?.text === 'string' ? (p as { text: string }).text : '')).join('');
    if (content.role !== 'model') lastUserText = text;
    promptText += `${text} `;
  }
  const declarations = Array.isArray(o.tools) ? (o.tools as { functionDeclarations?: { name?: unknown }[] }[]).flatMap((t) => t?.functionDeclarations ?? []) : [];
  const first = declarations[0]?.name;
  const mode = (o.toolConfig as { functionCallingConfig?: { mode?: unknown } } | undefined)?.functionCallingConfig?.mode;
  const tool = typeof first === 'string' && mode !== 'NONE' ? first : undefined;
  return { ok: true, request: { model: named[1] as string, stream: named[2] === 'streamGenerateContent', lastUserText, promptText, tool } };
}

export interface EchoContent {
  readonly responseId: string;
  readonly model: string;
  readonly text: string;
  readonly tool: string | undefined;
  readonly finishReason: string;
  readonly usage: { readonly promptTokenCount: number; readonly candidatesTokenCount: number; readonly totalTokenCount: number };
}

export function echoContent(request: GeminiRequest, body: Buffer): EchoContent {
  const digest = seededBytes(`gemini:${body.toString('latin1')}`, 12).toString('base64url');
  const text = `Echo: ${request.lastUserText}`.slice(0, MAX_REPLY_CHARS);
  const prompt = countTokens(request.promptText);
  const out = countTokens(request.tool ? JSON.stringify({ text }) : text);
  return {
    responseId: digest,
    model: request.model,
    text,
    tool: request.tool,
    finishReason: 'STOP',
    usage: { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out },
  };
}

function chunk(c: EchoContent, parts: readonly object[], last: boolean): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: 0 };
  if (last) candidate.finishReason = c.finishReason;
  return { candidates: [candidate], ...(last ? { usageMetadata: c.usage } : {}), modelVersion: c.model, responseId: c.responseId };
}

/** The whole answer (generateContent). */
export function contentObject(c: EchoContent): Record<string, unknown> {
  return chunk(c, [c.tool ? { functionCall: { name: c.tool, args: { text: c.text } } } : { text: c.text }], true);
}

/** The streamed chunks (streamGenerateContent): 16 characters each, the last with finishReason and usage; a call comes whole, last. */
export function contentChunks(c: EchoContent): Record<string, unknown>[] {
  if (c.tool) return [chunk(c, [{ functionCall: { name: c.tool, args: { text: c.text } } }], true)];
  const chunks: Record<string, unknown>[] = [];
  for (let i = 0; i < c.text.length; i += DELTA_CHARS) chunks.push(chunk(c, [{ text: c.text.slice(i, i + DELTA_CHARS) }], i + DELTA_CHARS >= c.text.length));
  return chunks;
}

export function dataLine(value: unknown): string {
  return `data: ${JSON.stringify(value)}\r\n\r\n`;
}
