// What the inspection endpoints echo of a chaos request: the parser's capture
// (raw header lines, the first INSPECT_BODY_MAX body bytes) and the client
// address the connection computed (PROXY v2 behind a trusted proxy).
import { INSPECT_BODY_MAX, type InspectedRequest } from '../../../../shared/content/inspection.js';
import type { RequestCapture } from '../../../../shared/registry/registry.js';
import type { ChaosContext } from '../../endpoint.js';

/** What every inspection endpoint asks the parser to keep. */
export const INSPECT_CAPTURE: RequestCapture = { rawHeaders: true, body: { max: INSPECT_BODY_MAX } };

const EMPTY = Buffer.alloc(0);

export function inspected(ctx: ChaosContext): InspectedRequest {
  const { req } = ctx;
  return {
    method: req.method,
    target: req.target,
    path: req.path,
    query: req.query,
    lines: req.rawHeaders ?? [],
    body: req.body ?? EMPTY,
    bodyBytes: req.bodyBytes,
    clientAddress: ctx.clientAddress,
  };
}
