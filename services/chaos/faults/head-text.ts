// Edits of a response head given as text (rawHead), shared by the faults that
// change header lines. A raw head may hold interim 1xx heads before the final
// one, and some endpoints write bare-LF heads: edits go to the final head and
// keep its line ends.
import type { HeaderList } from '../../../shared/primitives/headers.js';

/**
 * Adds `lines` before the blank line that ends the head (the final head when
 * interim heads precede it), with LF line ends when the head ends in a bare
 * LF; a head with no blank line gets them after its first line.
 */
export function insertHeaderLines(text: string, lines: HeaderList): string {
  const crlf = lines.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  if (text.endsWith('\r\n\r\n')) return `${text.slice(0, -2)}${crlf}\r\n`;
  if (text.endsWith('\n\n')) return `${text.slice(0, -1)}${crlf.replace(/\r\n/g, '\n')}\n`;
  const eol = text.indexOf('\n');
  return eol === -1 ? text : `${text.slice(0, eol + 1)}${crlf}${text.slice(eol + 1)}`;
}

/** Where the final head starts: its status line, the last one in the text (0 when none parses). */
function finalHeadStart(text: string): number {
  let start = 0;
  for (const match of text.matchAll(STATUS_LINE)) start = match.index;
  return start;
}

const STATUS_LINE = /^HTTP\/\d(?:\.\d)? \d{3}(?=[ \r\n]|$)/gm;

/** Drops the final head's lines named `name` (case-insensitive). */
export function removeHeaderLines(text: string, name: string): string {
  const start = finalHeadStart(text);
  const line = new RegExp(`^${name}:[^\\n]*\\n`, 'gim');
  return text.slice(0, start) + text.slice(start).replace(line, '');
}

/** True when the final head has a line named `name`. */
export function hasHeaderLine(text: string, name: string): boolean {
  return new RegExp(`^${name}:`, 'im').test(text.slice(finalHeadStart(text)));
}

/** Header lists: `name`'s first line replaced by `replacement` (dropped when undefined); appended when absent and a replacement is given. */
export function replaceHeader(headers: HeaderList, name: string, replacement: readonly [string, string] | undefined): HeaderList {
  const lower = name.toLowerCase();
  const out: HeaderList = [];
  let replaced = false;
  for (const line of headers) {
    if (line[0].toLowerCase() !== lower) out.push(line);
    else if (!replaced) {
      replaced = true;
      if (replacement) out.push(replacement);
    }
  }
  if (!replaced && replacement) out.push(replacement);
  return out;
}
