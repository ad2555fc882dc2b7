// Splits a raw response stream into exchanges the way an HTTP/1.1 client must
// (RFC 9112 §6.3): interim 1xx heads belong to the exchange that follows;
// 204, 304 and HEAD answers end at their head; others are framed by
// Content-Length. Used where interim heads and bodiless codes are the point.
import { parseHead, rawExchange, type ParsedResponse, type RawResult } from './raw.js';

export interface Exchange {
  readonly interims: readonly ParsedResponse[];
  readonly response: ParsedResponse;
  readonly body: Buffer;
}

/**
 * The exchanges in `data`, or undefined while the last is incomplete.
 * `headOnly[i]` marks the i-th exchange as the answer to a HEAD request.
 * Throws when a final response has neither Content-Length nor a bodiless status.
 */
export function parseExchanges(data: Buffer, headOnly: readonly boolean[] = []): Exchange[] | undefined {
  const out: Exchange[] = [];
  let rest = data;
  let interims: ParsedResponse[] = [];
  while (rest.length > 0) {
    if (rest.indexOf('\r\n\r\n') === -1) return undefined;
    const head = parseHead(rest);
    if (head.status >= 100 && head.status < 200) {
      interims.push(head);
      rest = head.rest;
      continue;
    }
    let length = 0;
    if (!headOnly[out.length] && head.status !== 204 && head.status !== 304) {
      const declared = head.header('content-length');
      if (declared === undefined) throw new Error(`response ${out.length} (${head.statusLine}) has no Content-Length`);
      length = Number(declared);
    }
    if (head.rest.length < length) return undefined;
    out.push({ interims, response: head, body: head.rest.subarray(0, length) });
    interims = [];
    rest = head.rest.subarray(length);
  }
  return interims.length > 0 ? undefined : out;
}

/** True once `data` holds `n` complete exchanges. */
export function exchangesComplete(n: number, headOnly: readonly boolean[] = []): (data: Buffer) => boolean {
  return (data) => {
    try {
      return (parseExchanges(data, headOnly)?.length ?? 0) >= n;
    } catch {
      return false; // reported by the caller once the stream ends
    }
  };
}

/** Sends `requests` pipelined on one connection and returns the raw result and its exchanges. */
export async function pipelined(
  port: number,
  requests: readonly string[],
  headOnly: readonly boolean[] = [],
): Promise<{ raw: RawResult; exchanges: Exchange[] }> {
  const raw = await rawExchange(port, requests.join(''), { until: exchangesComplete(requests.length, headOnly), timeoutMs: 5000 });
  const exchanges = parseExchanges(raw.data, headOnly);
  if (!exchanges || exchanges.length < requests.length) {
    throw new Error(`expected ${requests.length} exchanges, got ${JSON.stringify(raw.data.toString('latin1').slice(0, 400))} (${raw.end})`);
  }
  return { raw, exchanges };
}

/** One request on a fresh connection: its exchange. */
export async function exchange(port: number, request: string, headOnly = false): Promise<Exchange & { raw: RawResult }> {
  const { raw, exchanges } = await pipelined(port, [request], [headOnly]);
  return { ...(exchanges[0] as Exchange), raw };
}

/** The body parsed as JSON. */
export function json(ex: { readonly body: Buffer }): Record<string, unknown> {
  return JSON.parse(ex.body.toString('utf8')) as Record<string, unknown>;
}

/** Header lines without Date, for comparing two answers that should be identical. */
export function linesWithoutDate(response: ParsedResponse): string[] {
  return response.headerLines.filter(([name]) => name.toLowerCase() !== 'date').map(([name, value]) => `${name}: ${value}`);
}

/** Every header name on the response that starts with X-Chaos- (case-insensitive). */
export function chaosHeaderNames(response: ParsedResponse): string[] {
  return response.headerLines.map(([name]) => name).filter((name) => /^x-chaos-/i.test(name));
}

/** Runs `fn` over `items` with at most `limit` in flight (bounded socket use). */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return results;
}

/** How long lenientExchange lets the server take to start answering (its `waitMs` counts from there). */
const FIRST_BYTE_MS = 10_000;

/**
 * One request whose answer may lie about its framing (a /random pick can be
 * /truncate or /bytes): the head, and the body bytes that arrived before the
 * stated length was reached, the server closed, or `waitMs` passed.
 */
export async function lenientExchange(port: number, request: string, waitMs = 400): Promise<Exchange & { raw: RawResult }> {
  // waitMs counts from the first byte: a busy machine may take longer than that to start answering.
  const raw = await rawExchange(port, request, { until: exchangesComplete(1), timeoutMs: waitMs, firstByteTimeoutMs: FIRST_BYTE_MS });
  const interims: ParsedResponse[] = [];
  let response = parseHead(raw.data);
  while (response.status < 200) {
    interims.push(response);
    response = parseHead(response.rest);
  }
  const declared = response.header('content-length');
  const body = declared === undefined ? response.rest : response.rest.subarray(0, Number(declared));
  return { interims, response, body, raw };
}
