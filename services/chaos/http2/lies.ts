// What the /h2/* lies share: the honest parts of a response (the fields the
// one header helper makes, lowercased; a small JSON body) and how a lie that
// comes before any HEADERS names itself (GOAWAY debug data `chaos:<mode>`).
import { jsonBody } from '../../../shared/primitives/json.js';
import type { HeaderValue } from '../../../shared/primitives/headers.js';
import { chaosHead, type ChaosContext } from '../endpoint.js';
import { ERROR, frame, FRAME, goawayFrame } from './frames.js';
import type { HeaderField } from './hpack.js';
import { h2Fields } from './responder.js';
import type { H2Session, H2Stream } from './session.js';

/** The stream of an /h2/* request: these endpoints declare only `h2`, so the pipeline sends nothing else here. */
export function streamOf(ctx: ChaosContext): H2Stream {
  if (ctx.h2 === undefined) throw new Error(`${ctx.endpoint.path} reached without an HTTP/2 stream`);
  return ctx.h2;
}

/** The body every lie sends where it sends one: which endpoint and mode. */
export function lieBody(ctx: ChaosContext, mode: string): Buffer {
  return jsonBody({ endpoint: ctx.endpoint.path, mode });
}

/** `:status` 200 and the response's fields: content-type, content-length, date, the x-chaos-* fields. */
export function lieFields(ctx: ChaosContext, length: number | undefined, extra: Readonly<Record<string, HeaderValue>>): HeaderField[] {
  return [[':status', '200'], ...h2Fields(chaosHead(ctx, 'application/json', length, extra))];
}

/** GOAWAY naming the lie in its debug data, for a client that never sees HEADERS. */
export function namingGoaway(lastStreamId: number, mode: string, code: number = ERROR.NO_ERROR): Buffer {
  return goawayFrame(lastStreamId, code, `chaos:${mode}`);
}

/**
 * A DATA frame a lie writes itself, outside the stream's flow control: charged to the connection's window as the
 * client charges it (RFC 9113 §6.9, even on a stream it then resets), so that later streams on a connection that
 * lives on keep to the client's window.
 */
export function lieData(session: H2Session, streamId: number, payload: Buffer, flags: number): void {
  session.write(frame(FRAME.DATA, flags, streamId, payload));
  session.spent(payload.length);
}
