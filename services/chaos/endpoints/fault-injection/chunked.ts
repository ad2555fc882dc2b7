import { CHUNKED_PARAMS, chunkedParts, type ChunkedMode } from '../../../../shared/content/fault-injection/index.js';
import { chunkedCorrupt, type ChunkedCorruption } from '../../faults/chunked-corrupt.js';
import { compose } from '../../faults/stage.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

/** The endpoint's modes as the chunked-corrupt fault names them. */
const CORRUPTION: Readonly<Record<ChunkedMode, ChunkedCorruption>> = {
  'bad-size': 'bad-size',
  'size-too-large': 'cut-chunk',
  'missing-terminator': 'no-last-chunk',
  'junk-extensions': 'junk-extensions',
  'junk-trailers': 'junk-trailers',
  'cl-and-te': 'cl-and-te',
};

export default defineChaosEndpoint({
  id: 'chunked',
  path: '/chunked',
  category: 'fault-injection',
  transports: noH2(NO_H2.chunked),
  summary: 'A JSON body in three chunks whose Transfer-Encoding: chunked framing lies (`mode`), then a close',
  params: CHUNKED_PARAMS,
  headers: ['X-Chaos-Chunked-Mode'],
  wire: {
    cuts: 'close',
  },
  // Not in the /random pool: most modes leave a client with a framing error.
  handle(ctx, { mode }) {
    const parts = chunkedParts(mode);
    const length = parts.reduce((sum, part) => sum + part.length, 0);
    // The honest response has a Content-Length; the fault reframes it as chunks (cl-and-te keeps it).
    const sink = compose(ctx.wire, [chunkedCorrupt(CORRUPTION[mode])]);
    sink.head(200, chaosHead(ctx, 'application/json', length, { 'Chunked-Mode': mode }));
    for (const part of parts) sink.write(part);
    sink.end();
  },
});
