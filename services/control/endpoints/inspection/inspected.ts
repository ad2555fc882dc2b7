// What the control twins of the inspection endpoints echo: node:http's
// rawHeaders (names, order and repeats as received; values trimmed of OWS by
// node), the first INSPECT_BODY_MAX bytes of the decoded body, and the client
// address the service computed (X-Forwarded-For behind a trusted proxy).
import { errorResponse } from '../../../../shared/registry/errors.js';
import type { HttpContext } from '../../../../shared/http/http-service.js';
import { INSPECT_BODY_MAX, type HeaderLine, type InspectedRequest } from '../../../../shared/content/inspection.js';

/** The largest body read, as on the chaos host (its parser's limit): beyond it a 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** node:http's flat rawHeaders as lines. */
export function rawLines(raw: readonly string[]): HeaderLine[] {
  const lines: HeaderLine[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) lines.push([raw[i] as string, raw[i + 1] as string]);
  return lines;
}

/**
 * The request with its body read: the first INSPECT_BODY_MAX bytes kept, all
 * counted; undefined when the body passes MAX_BODY_BYTES (the rest is not read).
 */
export function readInspected(ctx: HttpContext): Promise<InspectedRequest | undefined> {
  const { req } = ctx;
  return new Promise((resolve, reject) => {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let total = 0;
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > MAX_BODY_BYTES) {
        req.off('data', onData);
        resolve(undefined);
        return;
      }
      if (keptBytes < INSPECT_BODY_MAX) {
        const part = chunk.subarray(0, INSPECT_BODY_MAX - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
    };
    req.on('data', onData);
    req.once('end', () =>
      resolve({
        method: req.method ?? 'GET',
        target: req.url ?? '/',
        path: ctx.path,
        query: ctx.query,
        lines: rawLines(req.rawHeaders),
        body: Buffer.concat(kept, keptBytes),
        bodyBytes: total,
        clientAddress: ctx.clientAddress,
      }),
    );
    req.once('error', reject);
  });
}

/** The body passed MAX_BODY_BYTES: a real 413, and the connection closes (the rest is never read). */
export function refuseTooLarge(ctx: HttpContext): void {
  const response = errorResponse(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
  ctx.res.shouldKeepAlive = false;
  ctx.res.writeHead(response.status, response.headers.flat());
  ctx.res.end(response.body);
}
