// What the HTTP/2 twins of the control host share (issue 28, docs/http2.md):
// node:http2 serves them through its compatibility API (shared/http/http2-door.ts),
// and a twin that must act on the stream or the connection (SETTINGS, GOAWAY,
// a push) reaches them here. Each answers what its chaos twin breaks, done
// right: the whole body with an accurate content-length, valid SETTINGS,
// a GOAWAY only after the response and naming the last stream taken.
import type { ServerHttp2Stream } from 'node:http2';
import { MAX_TWIN_UPLOAD_BYTES } from '../../../shared/content/http2.js';
import type { HttpContext } from '../../../shared/http/http-service.js';
import { http2Stream } from '../../../shared/http/http2-door.js';
import { jsonBody } from '../../../shared/primitives/json.js';
import { errorResponse } from '../../../shared/registry/errors.js';
import type { TransportSpec } from '../../../shared/registry/transports.js';

/** The twins of the /h2/* lies are HTTP/2 frames: over HTTP/1.1 the pipeline answers the real 421, as chaos does. */
export const H2_TWIN_TRANSPORTS: TransportSpec = { protocols: ['h2'] };

/** HTTP/1.1 and HTTP/2: what every other control endpoint is served over unless it says otherwise (endpoints/index.ts). */
export const HTTP1_AND_H2: TransportSpec = { protocols: ['http/1.1', 'h2'] };

/** The request's HTTP/2 stream: these endpoints declare only `h2`, so the pipeline sends nothing else here. */
export function streamOf(ctx: HttpContext): ServerHttp2Stream {
  const stream = http2Stream(ctx.req);
  if (stream === undefined) throw new Error(`${ctx.endpoint.path} reached without an HTTP/2 stream`);
  return stream;
}

/** The body a twin sends: which endpoint and mode (its chaos twin's body's shape), what it did, and `filler` dots. */
export function twinBody(ctx: HttpContext, mode: string, did: Readonly<Record<string, string | number | boolean>> = {}, filler = 0): Buffer {
  const json = jsonBody({ endpoint: ctx.endpoint.path, mode, ...did });
  return filler === 0 ? json : Buffer.concat([json, Buffer.alloc(filler, 0x2e)]);
}

/** The whole answer (an accurate content-length); then `after` once node:http2 has taken its last byte. */
export function sendWhole(ctx: HttpContext, body: Buffer, after?: () => void): void {
  if (after !== undefined) ctx.res.once('finish', after);
  ctx.send(200, 'application/json', body);
}

/**
 * Reads the request body, counted and dropped, then `then(bytes)`; node:http2
 * gives the client window back as it is read. Past MAX_TWIN_UPLOAD_BYTES: a
 * real 413 and the stream's rest refused (RST_STREAM CANCEL after the answer).
 */
export function readUpload(ctx: HttpContext, then: (bytes: number) => void): void {
  let bytes = 0;
  let refused = false;
  ctx.req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes <= MAX_TWIN_UPLOAD_BYTES || refused) return;
    refused = true;
    const response = errorResponse(413, `the request body is larger than ${MAX_TWIN_UPLOAD_BYTES} bytes`);
    ctx.res.writeHead(response.status, response.headers.flat());
    ctx.res.end(response.body);
  });
  ctx.req.once('end', () => {
    if (!refused) then(bytes);
  });
}
