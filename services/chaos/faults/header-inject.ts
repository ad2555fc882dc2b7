// header-inject: adds header lines to whatever head the layer above writes,
// however it writes it: appended to a header list, or (raw heads) before the
// blank line of the final head, after any interim 1xx heads, keeping bare-LF
// line ends.
import type { HeaderList } from '../../../shared/primitives/headers.js';
import type { ResponseSink } from '../wire.js';
import { insertHeaderLines } from './head-text.js';
import { Stage, type Fault } from './stage.js';

export function headerInject(lines: HeaderList): Fault {
  return (next) => new HeaderInject(next, lines);
}

class HeaderInject extends Stage {
  constructor(
    next: ResponseSink,
    private readonly lines: HeaderList,
  ) {
    super(next);
  }

  protected override passHead(status: number, headers: HeaderList, reason: string | undefined): void {
    this.next.head(status, [...headers, ...this.lines], reason);
  }

  protected override passRawHead(text: string): void {
    this.next.rawHead(insertHeaderLines(text, this.lines));
  }
}
