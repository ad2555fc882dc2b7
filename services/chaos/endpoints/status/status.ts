import { jsonBody } from '../../../../shared/primitives/json.js';
import { interimStatusBody, STATUS_CODE, isInterim, protocolSwitchBody, statusBody, switchesProtocols } from '../../../../shared/content/status.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { canSendInterim, sendStatus } from '../../status-writer.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'status',
  path: '/status/{code}',
  category: 'status',
  summary: 'Answers with status `code` and a JSON body naming it; 204/304 without a body; 1xx as an interim head then a final 200; 101 refused with 400',
  transports: HTTP1_AND_H2,
  params: {
    code: STATUS_CODE,
  },
  headers: ['X-Chaos-Status'],
  wire: {
    // The code, the HTTP version (an interim head or not) and keep-alive decide every byte.
    replayable: true,
  },
  docs: {
    example: { target: '/status/418' },
    random: 'seeded',
  },
  handle(ctx, { code }) {
    if (switchesProtocols(code)) {
      // Switching protocols would hand the connection to a protocol nobody asked for.
      sendComplete(ctx, 400, 'application/json', bodyFor(code, false), { Status: 400 });
      return;
    }
    // For an interim code X-Chaos-Status names the requested code, not the final 200.
    sendStatus(ctx, code, bodyFor(code, isInterim(code) && canSendInterim(ctx)), { Status: code });
  },
});

/**
 * The JSON body depends only on the code (and, for a 1xx, on whether the
 * interim was sent): built once. Codes are clamped into 100–599, so the
 * cache holds at most two entries per code; the bound is a backstop.
 */
const bodies = new Map<number, Buffer>();
const MAX_CACHED_BODIES = 1024;

function bodyFor(code: number, interimSent: boolean): Buffer {
  const key = code * 2 + (interimSent ? 1 : 0);
  let body = bodies.get(key);
  if (body === undefined) {
    if (switchesProtocols(code)) body = jsonBody(protocolSwitchBody(code));
    else body = jsonBody(isInterim(code) ? interimStatusBody(code, interimSent) : statusBody(code));
    if (bodies.size < MAX_CACHED_BODIES) bodies.set(key, body);
  }
  return body;
}
