// Writes a Streamable HTTP plan (shared/content/agent/mcp-http.ts) on the
// chaos wire: JSON with an accurate length, or a chunked SSE stream paced by
// wire timers, cut where the mode says, or held and fed from the store (the
// GET stream, where response-on-get-stream puts its answers).
import { MCP_KEEPALIVE_MS, MCP_SESSION_HEADER, SSE_KEEPALIVE, sseText, type McpPlan, type SseOut } from '../../../../shared/content/agent/index.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import type { ErrorStatus } from '../../../../shared/registry/errors.js';
import { rngFromSeed } from '../../../../shared/primitives/seed.js';
import { chaosHead, sendComplete, sendRealError, type ChaosContext } from '../../endpoint.js';

/** How often a held GET stream asks the store for events another replica (or a POST) appended. */
export const MCP_POLL_MS = 100;

function chunk(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, 'latin1'), bytes, Buffer.from('\r\n', 'latin1')]);
}

export function renderPlan(ctx: ChaosContext, plan: McpPlan, mode: string): void {
  const extra = { 'Mcp-Mode': mode };
  const session: HeaderList = plan.sessionId !== undefined ? [[MCP_SESSION_HEADER, plan.sessionId]] : [];
  if (plan.kind === 'json') {
    const text = Buffer.from(plan.body === undefined ? '' : `${JSON.stringify(plan.body)}\n`);
    if (plan.real) sendRealError(ctx, plan.status as ErrorStatus, plan.body ?? {});
    else sendComplete(ctx, plan.status, 'application/json', text, extra, session);
    return;
  }
  const wire = ctx.wire;
  wire.head(200, chaosHead(ctx, 'text/event-stream', undefined, extra).concat([['Cache-Control', 'no-cache'], ['Transfer-Encoding', 'chunked'], ...session]));
  if (wire.headOnly) {
    wire.end();
    return;
  }
  const events = plan.events;
  // Where the stream stops: after the first event with data, or inside the last one (at a point seeded by the request).
  const firstData = events.findIndex((e) => e.data !== '');
  const stopAt = plan.cut === 'after-first' ? firstData + 1 : plan.cut === 'mid-event' ? events.length - 1 : events.length;
  const send = (i: number): void => {
    if (wire.closed) return;
    if (i >= stopAt) {
      finish(ctx, plan, events, i, mode);
      return;
    }
    wire.write(chunk(sseText(events[i] as SseOut)));
    wire.whenWritable(() => wire.setTimer(events[i + 1]?.pauseMs ?? 0, () => send(i + 1)));
  };
  send(0);
}

function finish(ctx: ChaosContext, plan: McpPlan & { kind: 'sse' }, events: readonly SseOut[], at: number, mode: string): void {
  const wire = ctx.wire;
  if (plan.cut === 'mid-event') {
    const text = sseText(events[at] as SseOut);
    const rng = rngFromSeed(`mcp:${mode}:${(ctx.req.body ?? Buffer.alloc(0)).toString('latin1')}`);
    wire.write(chunk(text.slice(0, rng.intBetween(1, text.length - 3))));
    wire.end('close');
    return;
  }
  if (plan.cut === 'after-first') {
    // A clean event boundary, then the connection closes with no last chunk: the client may resume.
    wire.end('close');
    return;
  }
  if (!plan.hold || plan.poll === undefined) {
    wire.write('0\r\n\r\n');
    wire.end();
    return;
  }
  hold(ctx, plan.poll);
}

/** A held GET stream: the store's new events as they come, a comment now and then, the last chunk at MAX_RESPONSE_MS. */
function hold(ctx: ChaosContext, poll: { readonly session: string; readonly stream: string; readonly after: number }): void {
  const wire = ctx.wire;
  const deadline = performance.now() + ctx.config.maxResponseMs;
  let after = poll.after;
  let quietMs = 0;
  const tick = (): void => {
    if (wire.closed) return;
    if (performance.now() >= deadline) {
      wire.write('0\r\n\r\n');
      wire.end();
      return;
    }
    ctx.store.eventsAfter(poll.session, poll.stream, after).then(
      (found) => {
        if (wire.closed) return;
        for (const event of found) {
          wire.write(chunk(sseText({ id: `${poll.stream}.${event.seq}`, data: event.data })));
          after = event.seq;
        }
        quietMs = found.length > 0 ? 0 : quietMs + MCP_POLL_MS;
        if (quietMs >= MCP_KEEPALIVE_MS) {
          wire.write(chunk(SSE_KEEPALIVE));
          quietMs = 0;
        }
        wire.whenWritable(() => wire.setTimer(MCP_POLL_MS, tick));
      },
      () => {
        // The store cannot answer: the stream ends; the client reconnects with Last-Event-ID.
        if (!wire.closed) {
          wire.write('0\r\n\r\n');
          wire.end();
        }
      },
    );
  };
  tick();
}
