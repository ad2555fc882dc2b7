// Every X-Chaos-* line an endpoint sends is declared in its definition's
// `headers` (DESIGN §3, STYLE §4): each endpoint on all three hosts, in every
// value of its mode parameter, is asked once on a real socket and only the
// response heads are read, so held connections cost a short wait, no more.
import t from 'tap';
import type { Param } from '../../../shared/primitives/params.js';
import { allowedMethods, modeParamOf, type AnyEndpoint, type Registry } from '../../../shared/registry/registry.js';
import { mapLimit } from '../../helpers/final-response.js';
import { get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';
import { serviceRegistries } from '../../../services/registries.js';

const config = testConfig({ RATE_LIMIT_INFINITE: '0' });

/** Lines any endpoint may send without declaring them. */
const COMMON = ['X-Chaos-Category', 'X-Chaos-Endpoint', 'X-Chaos-Origin', 'X-Chaos-Counterpart', 'X-Chaos-Clamped'];

/** Values for `{name}` segments, so templated endpoints can be reached too. */
const SEGMENTS: Readonly<Record<string, string>> = { code: '200', format: 'json', type: 'users', path: 'declared/headers' };

/** Keep what would wait short: the heads are all we read. */
// Short waits; spread 0 makes /jitter's draw its centre (a lognormal with median 1 ms and σ = 200 would often hit its 15 s bound).
const QUICK: Readonly<Record<string, string>> = { ms: '1', interval: '10', spread: '0' };

function concretePath(path: string): string {
  return path.replace(/\{([a-z_]+)\*?\}/g, (_, name: string) => SEGMENTS[name] ?? 'x');
}

/** A value each required query parameter accepts. */
function requiredValue(spec: Param<unknown>): string {
  if (spec.kind === 'int' || spec.kind === 'number') return String(spec.min ?? 1);
  if (spec.kind === 'enum') return (spec.accepted as readonly string[])[0] as string;
  return spec.kind === 'boolean' ? 'true' : 'abc';
}

/** One request target per value of the mode parameter (one target when there is none). */
function targets(endpoint: AnyEndpoint<unknown>): string[] {
  const modeParam = modeParamOf(endpoint);
  const modes = modeParam === undefined ? [undefined] : ((endpoint.params[modeParam] as Param<unknown>).accepted as readonly string[]);
  return modes.map((mode) => {
    const pairs: string[] = [];
    for (const [name, spec] of Object.entries(endpoint.params)) {
      if (spec.in !== 'query') continue;
      if (name === modeParam && mode !== undefined) pairs.push(`${name}=${encodeURIComponent(mode)}`);
      else if (QUICK[name] !== undefined) pairs.push(`${name}=${QUICK[name]}`);
      else if (spec.required) pairs.push(`${name}=${encodeURIComponent(requiredValue(spec))}`);
    }
    const path = concretePath(endpoint.path);
    return pairs.length === 0 ? path : `${path}?${pairs.join('&')}`;
  });
}

/**
 * /status-line lies in its status line or its line ends, which parseHead
 * refuses by design; its header lines are read with that lie undone (its
 * bytes are pinned in status.test.ts).
 */
function undoStatusLineLie(data: Buffer): Buffer {
  const text = data.toString('latin1');
  const lf = !text.includes('\r\n');
  const head = lf ? text.replace(/\n/g, '\r\n') : text;
  return Buffer.from(head.replace(/^[^\r]*\r\n/, 'HTTP/1.1 200 OK\r\n'), 'latin1');
}

/** Every head up to the final (non-1xx) one; empty when the connection ended before a head. */
function heads(data: Buffer, target = ''): ParsedResponse[] {
  const out: ParsedResponse[] = [];
  let rest = target.startsWith('/status-line?') ? undoStatusLineLie(data) : data;
  while (rest.indexOf('\r\n\r\n') !== -1) {
    const head = parseHead(rest);
    out.push(head);
    if (head.status >= 200) break;
    rest = head.rest;
  }
  return out;
}

/** The chaos targets that end before any head: a reset, a close, bytes that are not HTTP. */
const HEADLESS = ['/reset?phase=before-head', '/empty', '/garbage'];

const finalHeadIn = (target: string) => (data: Buffer): boolean => heads(data, target).some((h) => h.status >= 200);

function declared(endpoint: AnyEndpoint<unknown>): Set<string> {
  return new Set([...COMMON, ...(endpoint.headers ?? [])].map((name) => name.toLowerCase()));
}

/** Declared, or in a declared numbered family (`X-Chaos-Header-NNN` covers X-Chaos-Header-001 …). */
function isDeclared(allowed: ReadonlySet<string>, name: string): boolean {
  const lower = name.toLowerCase();
  return allowed.has(lower) || allowed.has(lower.replace(/\d{3}$/, 'nnn'));
}

const hosts = [
  ['chaos', serviceRegistries().chaos],
  ['control', serviceRegistries().control],
  ['bots', serviceRegistries().bots],
] as const;

for (const [host, registry] of hosts as readonly (readonly [string, Registry<unknown>])[]) {
  t.test(`${host} host: every X-Chaos-* line of every mode is declared`, async (t) => {
    const port = host === 'chaos' ? (await startChaos(t, { config })).port : (await startHttp(t, host as 'control' | 'bots', config)).port;
    const jobs = registry.endpoints.flatMap((endpoint) => targets(endpoint).map((target) => ({ endpoint, target })));
    const results = await mapLimit(jobs, 8, async ({ endpoint, target }) => {
      const method = allowedMethods(endpoint).includes('GET') ? 'GET' : (allowedMethods(endpoint)[0] as string);
      const request = method === 'GET' ? get(target) : get(target, { 'Content-Length': '0' }, method);
      const r = await rawExchange(port, request, { until: finalHeadIn(target), timeoutMs: 1500 });
      return { endpoint, target, method, found: heads(r.data, target) };
    });
    let lines = 0;
    let answered = 0;
    for (const { endpoint, target, method, found } of results) {
      if (found.length > 0) answered++;
      let allowed = declared(endpoint);
      for (const head of found) {
        // /random answers as its pick: the pick's declared lines are allowed too.
        const from = head.header('x-chaos-random-from');
        const pick = from === undefined ? undefined : registry.match(from)?.endpoint;
        if (pick) allowed = new Set([...allowed, ...declared(pick)]);
        for (const [name] of head.headerLines) {
          if (!/^x-chaos-/i.test(name)) continue;
          lines++;
          if (!isDeclared(allowed, name)) t.fail(`${host} ${method} ${target}: ${name} is not declared in ${endpoint.id}'s headers`);
        }
      }
    }
    t.ok(lines > jobs.length, `${jobs.length} requests, ${answered} heads, ${lines} X-Chaos-* lines checked`);
    // Only a mode that resets or closes before any head leaves no head to read.
    const headless = results.filter((r) => r.found.length === 0).map((r) => r.target);
    t.same(headless.sort(), host === 'chaos' ? [...HEADLESS].sort() : [], `every request got a head but ${jobs.length - answered} that never send one`);
  });
}

t.test('control endpoints without a twin keep X-Chaos-Origin and name no counterpart; the others name theirs', async (t) => {
  const { port } = await startHttp(t, 'control', config);
  for (const [path, twin] of [
    ['/.well-known/agent-skills/echo-agent/SKILL.md', undefined],
    ['/.well-known/jwks.json', 'http://chaos.test:8080/.well-known/jwks.json'],
    ['/infinite/json/users/declared', undefined],
    ['/status/418', 'http://chaos.test:8080/status/418'],
    ['/cache-coherent?mode=all', 'http://chaos.test:8080/cache-confused?mode=all'],
  ] as const) {
    const head = parseHead((await rawExchange(port, get(path), { until: finalHeadIn(path), timeoutMs: 3000 })).data);
    t.equal(head.header('x-chaos-origin'), 'control', `${path}: X-Chaos-Origin`);
    t.equal(head.header('x-chaos-counterpart'), twin, `${path}: X-Chaos-Counterpart ${twin ?? 'absent'}`);
  }
});
