import { FAULT_TERMS, MIX_DELAY_MAX_MS, MIX_PARAMS, mixContent, mixParts, ownContentType } from '../../../../shared/content/fault-injection/index.js';
import { bodyFraming } from '../../../../shared/content/status.js';
import { formatHead, reasonPhrase, type HeaderList } from '../../../../shared/primitives/headers.js';
import { compose, FAULTS, mixFault, type Fault } from '../../faults/index.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

/** The most any one fault adds to the answer's time (ms), from the faults' own terms. */
const LONGEST_FAULT_MS = Math.max(...Object.values(FAULT_TERMS).map((term) => term.longestMs));

export default defineChaosEndpoint({
  id: 'mix',
  path: '/mix',
  category: 'fault-injection',
  transports: HTTP1_AND_H2,
  summary: 'Composes one answer from parts: `status`, `delay`, repeatable `header`, `body` and one wire `fault`; X-Chaos-Mix lists the parts applied',
  params: MIX_PARAMS,
  headers: ['X-Chaos-Mix'],
  holding: {
    // `delay` (up to 15 s), then the slowest fault (a head or body in 10 pieces at most 1 s apart, or a 9 s wait).
    longestMs: () => MIX_DELAY_MAX_MS + LONGEST_FAULT_MS,
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
    if (delay > 0) stages.push(FAULTS['delay-first-byte'].make({ ms: delay }));
    if (fault) stages.push(mixFault(fault, { bodyLength: payload.length, headLength: formatHead(status, reasonPhrase(status), out).length }));
    const sink = compose(ctx.wire, stages);
    sink.head(status, out);
    if (payload.length > 0) sink.write(payload);
    sink.end();
  },
});
