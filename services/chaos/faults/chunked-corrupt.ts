// chunked-corrupt: the body goes out with Transfer-Encoding: chunked (in place
// of Content-Length), and the chunked framing is broken one way:
// - bad-size: the first chunk's size line is not hexadecimal;
// - overstated: every chunk's size line claims one byte more than follows;
// - cut-chunk: the first chunk's size line claims CUT_CHUNK_EXTRA bytes more
//   than follow, and nothing comes after them (the client waits for the rest
//   until the close);
// - no-last-chunk: the chunks are honest but the terminating 0-size chunk
//   never comes;
// - junk-extensions: honest sizes, each followed by legal but absurd chunk
//   extensions (RFC 9112 §7.1.1: a bare name, an empty quoted value, quoted
//   separators), a few hundred bytes per size line;
// - junk-trailers: honest chunks; the trailer section after the last chunk
//   holds lines that are not fields (no colon, a space in the name, an empty
//   name);
// - cl-and-te: honest chunks, but the head keeps its Content-Length beside
//   Transfer-Encoding: chunked (RFC 9112 §6.3: a sender must not; a
//   recipient must let chunked win and close after).
// The connection closes after the body: nothing after broken framing can be read.
import type { ChunkedCorruption } from '../../../shared/content/fault-injection/index.js';
import type { HeaderList } from '../../../shared/primitives/headers.js';
import type { ResponseSink } from '../wire.js';
import { insertHeaderLines, removeHeaderLines, replaceHeader } from './head-text.js';
import { Stage, asBytes, type Fault } from './stage.js';

// The kinds are named where /mix's grammar reads them (shared/content/fault-injection/mix.ts).
export { CHUNKED_CORRUPTIONS, type ChunkedCorruption } from '../../../shared/content/fault-injection/index.js';

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
    const bare = replaceHeader(headers, 'transfer-encoding', undefined);
    if (this.kind === 'cl-and-te') this.next.head(status, [...bare, CHUNKED], reason);
    else this.next.head(status, replaceHeader(bare, 'content-length', CHUNKED), reason);
  }

  protected override passRawHead(text: string): void {
    const bare = removeHeaderLines(text, 'transfer-encoding');
    this.next.rawHead(insertHeaderLines(this.kind === 'cl-and-te' ? bare : removeHeaderLines(bare, 'content-length'), [CHUNKED]));
  }

  protected override passWrite(chunk: Buffer | string): boolean {
    const bytes = asBytes(chunk);
    if (bytes.length === 0) return true; // a 0-size chunk would end the body
    if (this.kind === 'cut-chunk') {
      // One chunk that promises more than it brings; what follows it is dropped.
      if (this.#chunks++ > 0) return true;
      return this.next.write(Buffer.concat([Buffer.from(`${(bytes.length + CUT_CHUNK_EXTRA).toString(16)}\r\n`, 'latin1'), bytes]));
    }
    let size = this.kind === 'bad-size' && this.#chunks === 0 ? 'zz' : (bytes.length + (this.kind === 'overstated' ? 1 : 0)).toString(16);
    if (this.kind === 'junk-extensions') size += JUNK_EXTENSIONS;
    this.#chunks++;
    return this.next.write(Buffer.concat([Buffer.from(`${size}\r\n`, 'latin1'), bytes, CRLF]));
  }

  protected override passEnd(): void {
    if (this.kind === 'junk-trailers') this.next.write(JUNK_TRAILERS);
    else if (this.kind !== 'no-last-chunk' && this.kind !== 'cut-chunk') this.next.write(LAST_CHUNK);
    this.next.end('close');
  }
}

const CRLF = Buffer.from('\r\n', 'latin1');

/** cut-chunk: how many bytes the size line claims beyond those that follow. */
export const CUT_CHUNK_EXTRA = 1024;

/** Legal chunk-ext syntax, absurd content: 300-odd bytes after every size. */
export const JUNK_EXTENSIONS = `;chaos;chaos-ext="";x=${'y'.repeat(256)};q="quoted \\"; =;\\" separators"`;

/** A last chunk whose trailer section holds lines that are not fields. */
const JUNK_TRAILERS = Buffer.from('0\r\nthis is not a field\r\nX Chaos Trailer: space in the name\r\n: empty name\r\n\r\n', 'latin1');
