// The event-stream framing every LLM shape of the chaos host writes (Chat
// Completions, Responses, Messages, Gemini): one head, one chunk of the chunked
// body per event, and the two ways a stream ends: properly, or cut mid-event.
import { chaosHead, type ChaosContext } from '../../endpoint.js';

type ExtraHeaders = Readonly<Record<string, string>>;

export function streamHead(ctx: ChaosContext, extra: ExtraHeaders): void {
  const headers = chaosHead(ctx, 'text/event-stream; charset=utf-8', undefined, extra);
  headers.push(['Cache-Control', 'no-cache'], ['Transfer-Encoding', 'chunked']);
  ctx.wire.head(200, headers);
}

/** One chunk of a chunked body. */
export function chunkOf(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
}

/** Every event, each its own chunk, then the last chunk. */
export function streamEvents(ctx: ChaosContext, extra: ExtraHeaders, texts: readonly string[]): void {
  streamHead(ctx, extra);
  for (const text of texts) ctx.wire.write(chunkOf(text));
  ctx.wire.write('0\r\n\r\n');
  ctx.wire.end();
}

/** The stream-cut lie: the events before the `cut`-th, the first half of it, then a close with no last chunk. */
export function streamCut(ctx: ChaosContext, extra: ExtraHeaders, texts: readonly string[], cut: number): void {
  const text = texts[cut] as string;
  streamHead(ctx, extra);
  for (const event of [...texts.slice(0, cut), text.slice(0, Math.max(1, Math.floor(text.length / 2)))]) ctx.wire.write(chunkOf(event));
  ctx.wire.end('close');
}
