// Reading text/event-stream responses in tests: the WHATWG parser written
// from the specification (not from our code) and a Transfer-Encoding: chunked
// decoder that says whether the last chunk came.

export interface SseEvent {
  readonly type: string;
  readonly data: string;
  readonly lastEventId: string;
}

/** WHATWG HTML §9.2.6 "Interpreting an event stream", for a complete stream. */
export function parseEventStream(text: string): { events: SseEvent[]; retry: number | undefined; lastEventId: string } {
  const events: SseEvent[] = [];
  let data = '';
  let type = '';
  let lastEventId = '';
  let retry: number | undefined;
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  // Lines end in CRLF, LF or CR; a trailing piece without an end of line is an incomplete line and discarded.
  const lines = source.split(/\r\n|\n|\r/);
  lines.pop();
  for (const line of lines) {
    if (line === '') {
      if (data !== '') events.push({ type: type || 'message', data: data.endsWith('\n') ? data.slice(0, -1) : data, lastEventId });
      data = '';
      type = '';
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') type = value;
    else if (field === 'data') data += `${value}\n`;
    else if (field === 'id' && !value.includes('\0')) lastEventId = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) retry = Number(value);
  }
  // At the end of the stream an event without its blank line is not dispatched.
  return { events, retry, lastEventId };
}

/** The body of a Transfer-Encoding: chunked response, and whether the last chunk came. */
export function dechunk(rest: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n', at);
    if (lineEnd === -1) return { body: Buffer.concat(parts), complete: false };
    const size = parseInt(rest.toString('latin1', at, lineEnd), 16);
    if (size === 0) return { body: Buffer.concat(parts), complete: rest.subarray(lineEnd).toString('latin1') === '\r\n\r\n' };
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

