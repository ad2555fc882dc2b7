import { MIX_PARAMS, mixContent, mixParts, ownContentType, type MixFault } from '../../../../shared/content/fault-injection.js';
import { bodyFraming } from '../../../../shared/content/status.js';
import { formatHead, reasonPhrase, type HeaderList } from '../../../../shared/headers.js';
import { chunkedCorrupt } from '../../faults/chunked-corrupt.js';
import { delayFirstByte } from '../../faults/delay-first-byte.js';
import { garbage } from '../../faults/garbage.js';
import { resetAt } from '../../faults/reset-at.js';
import { slowHead } from '../../faults/slow-head.js';
import { compose, type Fault } from '../../faults/stage.js';
import { truncateAt } from '../../faults/truncate-at.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';

/** slow-head:MS sends the head in this many pieces, MS apart: at most 10 s. */
const SLOW_HEAD_PIECES = 10;

/** The wire fault for a /mix fault part; `empty` has none (no head is written at all). */
function stageFor(fault: MixFault, bodyLength: number, headLength: number): Fault | undefined {
  switch (fault.kind) {
    case 'reset-before-head':
      return resetAt('before-head');
    case 'reset-mid-body':
      return resetAt('mid-body', Math.floor(bodyLength / 2));
    case 'truncate':
      return truncateAt(fault.at);
    case 'garbage':
      return garbage(1024, 'mix');
    case 'chunked-bad-size':
      return chunkedCorrupt('bad-size');
    case 'slow-head':
      return slowHead(Math.ceil(headLength / SLOW_HEAD_PIECES), fault.ms);
    case 'empty':
      return undefined;
  }
}

export default defineChaosEndpoint({
  id: 'mix',
  path: '/mix',
  category: 'fault-injection',
  summary: 'Composes one answer from parts: `status`, `delay`, repeatable `header`, `body` and one wire `fault`; X-Chaos-Mix lists the parts applied',
  params: MIX_PARAMS,
  headers: ['X-Chaos-Mix'],
  // `delay` (up to 15 s) and slow-head stall the connection.
  holdsConnection: true,
  handle(ctx, { status, delay, header, body: bodyPart, fault }) {
    const body = bodyPart ?? { kind: 'json' as const };
    const content = mixContent(body, status);
    const { type, lines } = ownContentType(header ?? [], content);
    const framing = bodyFraming(status);
    const payload = framing === 'json' ? content.bytes : Buffer.alloc(0);
    const out: HeaderList = chaosHead(
      ctx,
      framing === 'none' ? undefined : type,
      framing === 'none' ? undefined : payload.length,
      { Mix: mixParts(status, delay, header ?? [], body, fault) },
    );
    out.push(...lines);
    const stages: Fault[] = [];
    if (delay > 0) stages.push(delayFirstByte(delay));
    const stage = fault && stageFor(fault, payload.length, formatHead(status, reasonPhrase(status), out).length);
    if (stage) stages.push(stage);
    const sink = compose(ctx.wire, stages);
    if (fault?.kind === 'empty') {
      // After the delay, a clean close with nothing sent.
      sink.end('close');
      return;
    }
    sink.head(status, out);
    if (payload.length > 0) sink.write(payload);
    sink.end();
  },
});
