// The format and header cases shared by the payload (/json), headers
// (/wrong-content-type, /cache-confused, /header-flood), redirects
// (/redirect-chain) and method (/method) tests: a raw-socket call, the spec's
// 400 shape, one case list run against both hosts (chaos lies, control is
// well-formed), and curl as a user sees the headline lies.
import { execFile } from 'node:child_process';
import type { Test } from 'tap';
import { CACHE_MODES, CONTENT_TYPE_MODES } from '../../shared/content/headers.js';
import { ALLOW_CONTROL, METHOD_MODES } from '../../shared/content/method.js';
import { JSON_MODES } from '../../shared/content/payload/index.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from './raw.js';
import { startChaos, startHttp, testConfig } from './servers.js';

export interface Reply {
  readonly res: ParsedResponse;
  readonly body: Buffer;
  /** The head exactly as received, CRLFCRLF included. */
  readonly headText: string;
}


export const SIX = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** One request on a fresh connection; the reply is cut at its Content-Length (0 when absent). */
export async function call(port: number, path: string, method = 'GET', requestBody = ''): Promise<Reply> {
  const result = await rawExchange(port, request(path, method, requestBody), { until: completeByLength });
  if (result.end !== 'stopped') throw new Error(`${method} ${path}: no complete response (${result.end})`);
  const res = parseHead(result.data);
  const length = Number(res.header('content-length') ?? 0);
  return { res, body: res.rest.subarray(0, length), headText: result.data.toString('latin1', 0, res.headLength) };
}

export function request(path: string, method: string, body: string, extra: Readonly<Record<string, string>> = {}): string {
  const headers: Record<string, string> = { ...extra };
  if (body !== '') headers['Content-Length'] = String(Buffer.byteLength(body));
  return get(path, headers, method) + body;
}

export function parses(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

export function chaosLines(res: ParsedResponse): string[] {
  return res.headerLines.filter(([name]) => name.toLowerCase().startsWith('x-chaos-')).map(([name]) => name);
}

/** A real failure: the spec's 400 shape and no X-Chaos-* line at all. */
export function assertParamError(tt: Tap, reply: Reply, endpoint: string, param: string, requested: string): void {
  tt.equal(reply.res.status, 400, 'status 400');
  tt.same(chaosLines(reply.res), [], 'no X-Chaos-* header on a real failure');
  const body = JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;
  tt.match(body, { endpoint, error: 'invalid_parameter', requested, param, reason: String });
}

/** The assertions a subtest lends a helper. */
export type Tap = Pick<Test, 'equal' | 'same' | 'match'>;

export interface Case {
  readonly name: string;
  readonly method?: string;
  readonly chaos: string;
  readonly control: string;
  /** True when the reply shows the documented lie: must hold on chaos, must not on control. */
  readonly lies?: (r: Reply) => boolean;
  /** Both hosts give the same status and Location (cases without a lie). */
  readonly same?: boolean;
}

export function sniff(body: Buffer): string {
  const text = body.toString('utf8');
  if (text.startsWith('<?xml')) return 'xml';
  if (/^<!DOCTYPE html>/i.test(text)) return 'html';
  if (parses(body)) return 'json';
  return 'unknown';
}

export function labelFormat(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const media = (contentType.split(';')[0] as string).trim().toLowerCase();
  if (media === 'application/json' || media.endsWith('+json')) return 'json';
  if (media === 'application/xml' || media === 'text/xml') return 'xml';
  if (media === 'text/html') return 'html';
  return media;
}

/** Cache-Control directives that cannot all hold. */
export function contradicts(value: string | undefined): boolean {
  if (value === undefined) return false;
  const d = new Set(value.split(',').map((s) => (s.trim().split('=')[0] as string).toLowerCase()));
  return (
    (d.has('no-store') && (d.has('max-age') || d.has('s-maxage') || d.has('immutable'))) ||
    (d.has('no-cache') && d.has('immutable')) ||
    (d.has('private') && (d.has('s-maxage') || d.has('public')))
  );
}

/** The truthful /method behaviour: what control does and chaos never fully does. */
export function truthfulMethod(method: string, r: Reply): boolean {
  if (method === 'GET') return r.res.status === 200;
  if (method === 'OPTIONS') return r.res.status === 204 && r.res.header('allow') === ALLOW_CONTROL;
  return r.res.status === 405 && r.res.header('allow') === ALLOW_CONTROL;
}

export const CASES: Case[] = [
  ...JSON_MODES.map((mode): Case => ({
    name: `json ${mode}`,
    chaos: `/json?mode=${mode}`,
    control: `/json?mode=${mode}`,
    lies: (r) => labelFormat(r.res.header('content-type')) === 'json' && !parses(r.body),
  })),
  ...CONTENT_TYPE_MODES.map((type): Case => ({
    name: `content type ${type}`,
    chaos: `/wrong-content-type?type=${type}`,
    control: `/matched-content-type?type=${type}`,
    lies: (r) => labelFormat(r.res.header('content-type')) !== sniff(r.body),
  })),
  ...CACHE_MODES.map((mode): Case => ({
    name: `cache ${mode}`,
    chaos: `/cache-confused?mode=${mode}`,
    control: `/cache-coherent?mode=${mode}`,
    lies: (r) => contradicts(r.res.header('cache-control')),
  })),
  ...[1, 20, 100].map((n): Case => ({
    name: `header flood n=${n}`,
    chaos: `/header-flood?n=${n}`,
    control: `/header-flood?n=${n}`,
    lies: (r) => r.res.headerLines.some(([name]) => /^x-chaos-header-\d{3}$/i.test(name)),
  })),
  ...[0, 1, 3, 20].map((n): Case => ({
    name: `redirect chain n=${n}`,
    chaos: `/redirect-chain?n=${n}`,
    control: `/redirect-chain?n=${n}`,
    same: true,
  })),
  ...METHOD_MODES.flatMap((mode) =>
    SIX.map((method): Case => ({
      name: `method ${mode} ${method}`,
      method,
      chaos: `/method?mode=${mode}`,
      control: `/method?mode=${mode}`,
      // options-mismatch refuses the other methods truthfully: its lie is in OPTIONS alone.
      ...(method === 'GET' || (mode === 'options-mismatch' && method !== 'OPTIONS')
        ? { same: true }
        : { lies: (r: Reply) => !truthfulMethod(method, r) }),
    })),
  ),
];

/** The shared cases that belong to one test file, run on both hosts. */
export async function sharedCases(t: Test, belongs: (c: Case) => boolean): Promise<void> {
  const { port: chaosPort } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const base = testConfig().urls.base;
  // A filter that matches nothing would pass while testing nothing.
  const cases = CASES.filter(belongs);
  t.ok(cases.length > 0, `${cases.length} shared cases belong here`);
  for (const c of cases) {
    const method = c.method ?? 'GET';
    const body = ['POST', 'PUT', 'PATCH'].includes(method) ? 'a=1' : '';
    const chaos = await call(chaosPort, c.chaos, method, body);
    const control = await call(controlPort, c.control, method, body);
    for (const [host, r] of [['chaos', chaos], ['control', control]] as const) {
      t.ok(r.res.status !== 404 && r.res.status < 500, `${c.name} (${host}): answered, ${r.res.status}`);
    }
    // Chaos says it is chaos; control says it is the twin, and names it.
    t.ok(chaos.res.header('x-chaos-category') && chaos.res.header('x-chaos-endpoint'), `${c.name}: chaos carries X-Chaos-Category/Endpoint`);
    t.equal(control.res.header('x-chaos-origin'), 'control', `${c.name}: control carries X-Chaos-Origin`);
    const query = c.control.includes('?') ? c.control.slice(c.control.indexOf('?')) : '';
    t.equal(control.res.header('x-chaos-counterpart'), `${base}${c.chaos.split('?')[0]}${query}`, `${c.name}: X-Chaos-Counterpart names the chaos twin`);

    // Control is always well-formed.
    const ct = control.res.headers('content-type');
    if (control.body.length > 0) {
      t.equal(ct.length, 1, `${c.name} (control): one Content-Type`);
      t.equal(labelFormat(ct[0]), sniff(control.body), `${c.name} (control): the label matches the body`);
    }
    if (labelFormat(ct[0]) === 'json') t.ok(parses(control.body), `${c.name} (control): valid JSON`);
    const cacheControl = control.res.headers('cache-control');
    t.ok(cacheControl.length <= 1 && !contradicts(cacheControl[0]), `${c.name} (control): at most one, sensible Cache-Control`);
    if (control.res.status === 405) t.equal(control.res.header('allow'), ALLOW_CONTROL, `${c.name} (control): 405 carries the true Allow`);
    for (const allow of control.res.headers('allow')) t.equal(allow, ALLOW_CONTROL, `${c.name} (control): Allow is true`);

    if (c.lies) {
      t.ok(c.lies(chaos), `${c.name}: chaos shows the lie`);
      t.notOk(c.lies(control), `${c.name}: control does not`);
    }
    if (c.same) {
      t.equal(control.res.status, chaos.res.status, `${c.name}: same status`);
      t.equal(control.res.header('location'), chaos.res.header('location'), `${c.name}: same Location`);
    }
  }
}

export function curl(args: readonly string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-s', '--max-time', '10', ...args], { encoding: 'latin1', timeout: 15_000 }, (error, stdout) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error ? Number(error.code) : 0, stdout });
    });
  });
}

export function curlHeads(stdout: string): string[] {
  // Each head keeps its last line's CRLF, so every header line ends in \r\n.
  return stdout.split('\r\n\r\n').filter((part) => part.startsWith('HTTP/')).map((head) => `${head}\r\n`);
}
