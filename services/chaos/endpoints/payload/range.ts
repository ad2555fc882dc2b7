import {
  answerRange, coalesce, parseRange, partialAnswer, RANGE_FULL, RANGE_SIZE, resolveRange, type Interval, type RangeAnswer,
} from '../../../../shared/content/payload/index.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

const MODES = ['accepts-range-lies', 'ignores-range', 'bad-multipart', 'stale-if-range', 'suffix-confusion'] as const;
type Mode = (typeof MODES)[number];

/** accepts-range-lies: every part's bytes are read this far on (wrapping at 4000). */
const RANGE_LIE_OFFSET = 500;

/** bad-multipart without two distinct requested ranges: the spec's example pair, 200-299 first. */
const FIXED_BAD_PARTS: readonly Interval[] = [
  [200, 299],
  [0, 99],
];
const FIXED_BAD_MULTIPART = partialAnswer(FIXED_BAD_PARTS);

/** A real multipart/byteranges whose parts run backwards (descending first byte). */
function badMultipart(range: string | undefined): RangeAnswer {
  const specs = range === undefined ? undefined : parseRange(range);
  const parts: Interval[] = [];
  for (const spec of specs ?? []) {
    const interval = resolveRange(spec, RANGE_SIZE);
    if (interval) parts.push(interval);
  }
  const merged = coalesce(parts);
  if (merged.length < 2) return FIXED_BAD_MULTIPART;
  return partialAnswer(merged.sort((a, b) => b[0] - a[0]));
}

// Each mode is the control twin's RFC 9110 behaviour with exactly one departure.
const ANSWER: Readonly<Record<Mode, (range: string | undefined, ifRange: string | undefined) => RangeAnswer>> = {
  'accepts-range-lies': (range, ifRange) => answerRange(range, ifRange, { offset: RANGE_LIE_OFFSET }),
  // Still advertises Accept-Ranges: bytes.
  'ignores-range': () => RANGE_FULL,
  'bad-multipart': (range) => badMultipart(range),
  'stale-if-range': (range, ifRange) => answerRange(range, ifRange, { ignoreIfRange: true }),
  'suffix-confusion': (range, ifRange) => answerRange(range, ifRange, { suffixAsPrefix: true }),
};

export default defineChaosEndpoint({
  id: 'range',
  path: '/range',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'Range requests answered wrongly: shifted bytes, ignored ranges, backwards multipart, stale If-Range, suffix read as prefix',
  params: {
    mode: oneOf(MODES, { default: 'accepts-range-lies', description: 'which range lie' }),
  },
  headers: ['Accept-Ranges', 'ETag', 'Content-Range', 'X-Chaos-Range-Mode'],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { mode }) {
    const answer = ANSWER[mode](ctx.req.headers.get('range'), ctx.req.headers.get('if-range'));
    sendComplete(ctx, answer.status, answer.contentType, answer.body, { 'Range-Mode': mode }, answer.headers);
  },
});
