import { ETAG_BODY, ETAG_OPAQUE, ETAG_STRONG, etagDocument } from '../../../../shared/content/headers.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { oneOf, str } from '../../../../shared/primitives/params.js';
import { freshSeed, rngFromSeed } from '../../../../shared/primitives/seed.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

const MODES = ['random-etag', 'stable-etag-mutated-body', 'weak-strong-conflict', 'unquoted', 'future-last-modified'] as const;

/** Seeded `updated_at` values fall in 2020-01-01 .. 2029-12-31 (whole seconds). */
const SEEDED_EPOCH = Date.UTC(2020, 0, 1);
const SEEDED_SPAN_S = (Date.UTC(2030, 0, 1) - SEEDED_EPOCH) / 1000 - 1;

const FUTURE_LAST_MODIFIED = new Date(Date.UTC(2099, 0, 1)).toUTCString();

// Modes with fixed output: the canonical document (the control twin's body)
// under lying validators. Built once.
const FIXED: Readonly<Record<'weak-strong-conflict' | 'unquoted' | 'future-last-modified', HeaderList>> = {
  // The same opaque tag, once strong and once weak, on two ETag lines.
  'weak-strong-conflict': [
    ['ETag', ETAG_STRONG],
    ['ETag', `W/${ETAG_STRONG}`],
  ],
  'unquoted': [['ETag', ETAG_OPAQUE]],
  // No ETag: the only validator is a Last-Modified 73-odd years ahead.
  'future-last-modified': [['Last-Modified', FUTURE_LAST_MODIFIED]],
};

export default defineChaosEndpoint({
  id: 'etag',
  path: '/etag',
  category: 'headers',
  transports: HTTP1_AND_H2,
  summary: 'Validators that lie: a new ETag per call for the same body, one ETag for changing bodies, strong+weak, unquoted, Last-Modified in 2099',
  params: {
    mode: oneOf(MODES, { default: 'random-etag', description: 'which validator lie' }),
    seed: str({
      maxLength: 256,
      description: 'pins the generated ETag (random-etag) or the body value and timestamp (stable-etag-mutated-body); omit for a fresh one per call',
    }),
  },
  headers: ['ETag', 'Last-Modified', 'X-Chaos-Etag-Mode', 'X-Chaos-Etag-Seed'],
  docs: {
    random: 'seeded',
  },
  // If-None-Match and If-Modified-Since are never consulted: every call is a
  // 200 with a body, as from a server that does not revalidate.
  handle(ctx, { mode, seed }) {
    let body = ETAG_BODY;
    let lines: HeaderList;
    const extra: Record<string, string> = { 'Etag-Mode': mode };
    if (mode === 'random-etag' || mode === 'stable-etag-mutated-body') {
      const applied = seed ?? freshSeed();
      extra['Etag-Seed'] = encodeURIComponent(applied);
      const rng = rngFromSeed(`etag:${mode}:${applied}`);
      if (mode === 'random-etag') {
        // Same bytes every call; only the tag moves.
        lines = [['ETag', `"${rng.fill(Buffer.alloc(8)).toString('hex')}"`]];
      } else {
        // The canonical tag over a body whose value and timestamp move.
        const value = rng.fill(Buffer.alloc(8)).toString('hex');
        const updatedAt = SEEDED_EPOCH + rng.intBetween(0, SEEDED_SPAN_S) * 1000;
        body = etagDocument(value, updatedAt);
        lines = [['ETag', ETAG_STRONG]];
      }
    } else {
      lines = FIXED[mode];
    }
    sendComplete(ctx, 200, 'application/json', body, extra, lines);
  },
});
