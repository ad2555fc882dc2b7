import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { COMPRESSION_ENCODED, COMPRESSION_PLAIN, COMPRESSION_TYPE, ZSTD_LIES } from '../../../../shared/content/payload/index.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

const MODES = [
  'gzip-header-plain-body', 'gzip-body-no-header', 'wrong-encoding-name', 'chained-claim',
  'zstd-gzip-body', 'zstd-truncated', 'zstd-bad-checksum', 'zstd-unknown-dictionary',
] as const;
type Mode = (typeof MODES)[number];

/** Each mode: the body bytes, what they really are, and the Content-Encoding lines (if any). */
interface Lie {
  readonly body: Buffer;
  readonly bodyEncoding: 'identity' | 'gzip' | 'zstd';
  readonly lines: HeaderList;
}

// Bodies are precomputed (shared/content/payload/delivery.ts); Accept-Encoding is never
// consulted: a server that lies about its coding does not negotiate either.
const LIES: Readonly<Record<Mode, Lie>> = {
  // Claims gzip; the body is the plain text.
  'gzip-header-plain-body': { body: COMPRESSION_PLAIN, bodyEncoding: 'identity', lines: [['Content-Encoding', 'gzip']] },
  // Really gzip (starts 1f 8b), labelled only text/plain.
  'gzip-body-no-header': { body: COMPRESSION_ENCODED.gzip, bodyEncoding: 'gzip', lines: [] },
  // The body is really gzip, under a coding name nobody registered.
  'wrong-encoding-name': { body: COMPRESSION_ENCODED.gzip, bodyEncoding: 'gzip', lines: [['Content-Encoding', 'superzip']] },
  // One line listing gzip then br (applied in that order, so decoding is br first);
  // the body is the plain text, so neither decoder accepts it.
  'chained-claim': { body: COMPRESSION_PLAIN, bodyEncoding: 'identity', lines: [['Content-Encoding', 'gzip, br']] },
  // zstd (RFC 8878) claimed; each body is a frame a zstd decoder refuses, for the reason the mode names.
  'zstd-gzip-body': { body: ZSTD_LIES.gzip, bodyEncoding: 'gzip', lines: [['Content-Encoding', 'zstd']] },
  'zstd-truncated': { body: ZSTD_LIES.truncated, bodyEncoding: 'zstd', lines: [['Content-Encoding', 'zstd']] },
  'zstd-bad-checksum': { body: ZSTD_LIES.badChecksum, bodyEncoding: 'zstd', lines: [['Content-Encoding', 'zstd']] },
  'zstd-unknown-dictionary': { body: ZSTD_LIES.dictionary, bodyEncoding: 'zstd', lines: [['Content-Encoding', 'zstd']] },
};

export default defineChaosEndpoint({
  id: 'compression',
  path: '/compression',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'Content-Encoding that lies about the body: claims gzip over plain text, hides real gzip, names unknown codings, or claims zstd over gzip, a cut frame, a broken checksum or a dictionary never agreed',
  params: {
    mode: oneOf(MODES, { default: 'gzip-header-plain-body', description: 'which coding lie' }),
  },
  headers: ['Content-Encoding', 'X-Chaos-Compression-Mode', 'X-Chaos-Body-Encoding'],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { mode }) {
    const lie = LIES[mode];
    const headers = chaosHead(ctx, COMPRESSION_TYPE, lie.body.length, {
      'Compression-Mode': mode,
      'Body-Encoding': lie.bodyEncoding,
    });
    headers.push(...lie.lines);
    ctx.wire.head(200, headers);
    ctx.wire.write(lie.body);
    ctx.wire.end();
  },
});
