import { MIX_DELAY_MAX_MS, MIX_PARAMS, mixContent, mixParts, ownContentType, type MixFault } from '../../../../shared/content/fault-injection.js';
import { bodyFraming } from '../../../../shared/content/status.js';
import { formatHead, reasonPhrase, type HeaderList } from '../../../../shared/primitives/headers.js';
import { compose, FAULTS, type Fault } from '../../faults/index.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';

/** slow-head:MS sends the head in this many pieces, MS apart: at most 10 s. */
const SLOW_HEAD_PIECES = 10;

/** The wire fault of a /mix fault part, from the registry of faults (faults/index.ts); `empty` has none (no head is written at all). */
function stageFor(fault: MixFault, bodyLength: number, headLength: number): Fault | undefined {
  switch (fault.kind) {
    case 'reset-before-head':
      return FAULTS['reset-at']({ phase: 'before-head' });
    case 'reset-mid-body':
      return FAULTS['reset-at']({ phase: 'mid-body', at: Math.floor(bodyLength / 2) });
    case 'truncate':
      return FAULTS['truncate-at']({ at: fault.at });
    case 'garbage':
      return FAULTS.garbage({ bytes: 1024, seed: 'mix' });
    case 'chunked-bad-size':
      return FAULTS['chunked-corrupt']({ corruption: 'bad-size' });
    case 'slow-head':
      return FAULTS['slow-head']({ chunk: Math.ceil(headLength / SLOW_HEAD_PIECES), interval: fault.ms });
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
  holding: {
    // The longest delay, then a head in SLOW_HEAD_PIECES pieces at most 1 s apart.
    longestMs: () => MIX_DELAY_MAX_MS + (SLOW_HEAD_PIECES - 1) * 1000,
  },
  docs: {
    example: { target: '/mix?status=503&header=Retry-After:5&body=text:hello' },
  },
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
    if (delay > 0) stages.push(FAULTS['delay-first-byte']({ ms: delay }));
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
