// chunked-corrupt: the body goes out with Transfer-Encoding: chunked (in place
// of Content-Length), and the chunked framing is broken one way:
// - bad-size: the first chunk's size line is not hexadecimal;
// - overstated: every chunk's size line claims one byte more than follows;
// - no-last-chunk: the chunks are honest but the terminating 0-size chunk
//   never comes.
// The connection closes after the body: nothing after broken framing can be read.
import type { HeaderList } from '../../../shared/headers.js';
import type { ResponseSink } from '../wire.js';
import { insertHeaderLines, removeHeaderLines, replaceHeader } from './head-text.js';
import { Stage, asBytes, type Fault } from './stage.js';

export const CHUNKED_CORRUPTIONS = ['bad-size', 'overstated', 'no-last-chunk'] as const;
export type ChunkedCorruption = (typeof CHUNKED_CORRUPTIONS)[number];

export function chunkedCorrupt(kind: ChunkedCorruption): Fault {
  return (next) => new ChunkedCorrupt(next, kind);
}

const CHUNKED: readonly [string, string] = ['Transfer-Encoding', 'chunked'];
const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');

class ChunkedCorrupt extends Stage {
  #chunks = 0;

  constructor(
    next: ResponseSink,
    private readonly kind: ChunkedCorruption,
  ) {
    super(next);
  }

  protected override passHead(status: number, headers: HeaderList, reason: string | undefined): void {
    this.next.head(status, replaceHeader(replaceHeader(headers, 'transfer-encoding', undefined), 'content-length', CHUNKED), reason);
  }

  protected override passRawHead(text: string): void {
    const bare = removeHeaderLines(removeHeaderLines(text, 'transfer-encoding'), 'content-length');
    this.next.rawHead(insertHeaderLines(bare, [CHUNKED]));
  }

  protected override passWrite(chunk: Buffer | string): boolean {
    const bytes = asBytes(chunk);
    if (bytes.length === 0) return true; // a 0-size chunk would end the body
    const size = this.kind === 'bad-size' && this.#chunks === 0 ? 'zz' : (bytes.length + (this.kind === 'overstated' ? 1 : 0)).toString(16);
    this.#chunks++;
    return this.next.write(Buffer.concat([Buffer.from(`${size}\r\n`, 'latin1'), bytes, CRLF]));
  }

  protected override passEnd(): void {
    if (this.kind !== 'no-last-chunk') this.next.write(LAST_CHUNK);
    this.next.end('close');
  }
}

const CRLF = Buffer.from('\r\n', 'latin1');
