// One request per fresh connection and the reply cut at its Content-Length,
// for the category files that read raw bytes on both hosts (method, redirects);
// and curl as a user runs it.
import { execFile } from 'node:child_process';
import type { Test } from 'tap';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from './raw.js';

export interface Reply {
  readonly res: ParsedResponse;
  readonly body: Buffer;
  /** The head exactly as received, CRLFCRLF included. */
  readonly headText: string;
}

/** One request on a fresh connection; the reply is cut at its Content-Length (0 when absent). */
export async function call(port: number, path: string, method = 'GET', requestBody = '', extra: Readonly<Record<string, string>> = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...extra };
  if (requestBody !== '') headers['Content-Length'] = String(Buffer.byteLength(requestBody));
  const until = method === 'HEAD' ? (d: Buffer) => d.includes('\r\n\r\n') : completeByLength;
  const result = await rawExchange(port, get(path, headers, method) + requestBody, { until });
  if (result.end !== 'stopped') throw new Error(`${method} ${path}: no complete response (${result.end})`);
  const res = parseHead(result.data);
  const length = method === 'HEAD' ? 0 : Number(res.header('content-length') ?? 0);
  return { res, body: res.rest.subarray(0, length), headText: result.data.toString('latin1', 0, res.headLength) };
}

export function json(reply: Reply): Record<string, unknown> {
  return JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;
}

/** The names of the reply's X-Chaos-* lines, in order. */
export function chaosLines(res: ParsedResponse): string[] {
  return res.headerLines.filter(([name]) => name.toLowerCase().startsWith('x-chaos-')).map(([name]) => name);
}

/** The assertions a subtest lends a helper. */
type Tap = Pick<Test, 'equal' | 'same' | 'match'>;

/** A real 400 for a parameter: no X-Chaos-* lie (the origin and counterpart lines aside), the JSON error naming it. */
export function assertParamError(tt: Tap, reply: Reply, endpoint: string, param: string, requested: string, error = 'invalid_parameter'): void {
  tt.equal(reply.res.status, 400, `${endpoint} ${param}=${requested}: 400`);
  tt.same(chaosLines(reply.res).filter((n) => n.toLowerCase() !== 'x-chaos-origin' && n.toLowerCase() !== 'x-chaos-counterpart'), [], 'no X-Chaos-* lie on a real failure');
  tt.match(json(reply), { endpoint, error, param, reason: String });
}

export interface CurlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** curl -sS with a 10 s cap; its exit code, never a rejection for a non-zero exit. */
export function curl(args: readonly string[]): Promise<CurlResult> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sS', '--max-time', '10', ...args], { encoding: 'latin1', timeout: 15_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

export interface Exchange {
  readonly res: ParsedResponse;
  readonly body: Buffer;
}

/** One request on a fresh connection; the body is exactly Content-Length bytes, and nothing may follow. */
export async function exchange(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Exchange> {
  const headOnly = method === 'HEAD';
  const result = await rawExchange(port, get(path, headers, method), {
    until: headOnly ? (data) => data.includes('\r\n\r\n') : completeByLength,
    timeoutMs: 3000,
  });
  const res = parseHead(result.data);
  const length = Number(res.header('content-length') ?? 0);
  if (!headOnly && res.rest.length !== length) throw new Error(`${path}: ${res.rest.length} body bytes for Content-Length ${length}`);
  return { res, body: res.rest };
}

/** The assertions the helpers below use, on the root test or any subtest. */
export type Assert = Pick<Test, 'same' | 'equal' | 'ok' | 'notOk' | 'type'>;

/** The lie's three X-Chaos-* lines: category, endpoint and the mode under its own header name. */
export function expectChaosLines(t: Assert, res: ParsedResponse, category: string, endpoint: string, modeHeader: string, mode: string): void {
  t.same(res.headers('X-Chaos-Category'), [category], 'X-Chaos-Category');
  t.same(res.headers('X-Chaos-Endpoint'), [endpoint], 'X-Chaos-Endpoint');
  t.same(res.headers(modeHeader), [mode], modeHeader);
}

/** A real 400 naming the parameter, without any X-Chaos-* line. */
export function realFailure(t: Assert, ex: Exchange, param: string): void {
  t.equal(ex.res.status, 400);
  t.notOk(ex.res.headerLines.some(([name]) => name.toLowerCase().startsWith('x-chaos-')), 'a real failure carries no X-Chaos-*');
  const body = JSON.parse(ex.body.toString()) as { error: string; param: string; endpoint: string; reason: string };
  t.equal(body.error, 'invalid_parameter');
  t.equal(body.param, param);
  t.type(body.reason, 'string');
}

/** A head with its Date value replaced, for comparing two answers byte for byte. */
export const withoutDate = (text: string): string => text.replace(/(\r?\n)Date: [^\r\n]*/, '$1Date: <date>');

/** Asks for each target and expects a 400 parameter error without any X-Chaos-* line. */
export async function expect400(t: Test, port: number, targets: readonly string[]): Promise<void> {
  for (const target of targets) {
    const r = await rawExchange(port, get(target), { until: completeByLength });
    const head = parseHead(r.data);
    t.equal(head.status, 400, `${target.slice(0, 60)}: 400`);
    t.same(chaosLines(head), [], `${target.slice(0, 60)}: a real error, no X-Chaos-*`);
    t.equal((JSON.parse(head.rest.toString()) as { error: string }).error, 'invalid_parameter');
  }
}
