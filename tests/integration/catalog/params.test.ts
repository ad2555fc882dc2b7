// DESIGN §4 for every parameter of every endpoint on all three hosts, driven by
// the registries themselves: a wrong type or an unknown value is a 400 with the
// spec's error shape and no X-Chaos-* line; a number below its range is
// clamped, and the applied value is reported (unless the spec says silently).
import t from 'tap';
import type { Param } from '../../../shared/primitives/params.js';
import { allowedMethods, type AnyEndpoint } from '../../../shared/registry/registry.js';
import { get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';
import { serviceRegistries } from '../../../services/registries.js';

const config = testConfig({ RATE_LIMIT_INFINITE: '0' });

/** Values for `{name}` segments, so templated endpoints can be reached too. */
const SEGMENTS: Readonly<Record<string, string>> = { code: '200', format: 'json', type: 'users', path: 'params/table' };

function concretePath(path: string): string {
  return path.replace(/\{([a-z_]+)\*?\}/g, (_, name: string) => SEGMENTS[name] ?? 'x');
}

/** A value each required query parameter accepts, so only the parameter under test is wrong. */
function baseline(endpoint: AnyEndpoint<unknown>, except: string): string[] {
  const pairs: string[] = [];
  for (const [name, spec] of Object.entries(endpoint.params)) {
    if (name === except || spec.in !== 'query' || !spec.required) continue;
    pairs.push(`${name}=${spec.kind === 'int' || spec.kind === 'number' ? String(spec.min ?? 1) : 'abc'}`);
  }
  return pairs;
}

/** The value a clamped parameter ends up with: its bound, unless the endpoint raises it to fit a service bound (/drip). */
function appliedValue(endpoint: AnyEndpoint<unknown>, name: string, clampedTo: number): number {
  const values: Record<string, unknown> = {};
  for (const [other, spec] of Object.entries(endpoint.params)) values[other] = spec.default;
  values[name] = clampedTo;
  return endpoint.adjust?.(values, config)?.[name] ?? clampedTo;
}

const BAD: Readonly<Record<string, readonly string[]>> = {
  int: ['abc', '1.5', '', '0x10'],
  number: ['abc', 'NaN', ''],
  boolean: ['maybe', ''],
  enum: ['no-such-value-42', ''],
};

/** The final (non-1xx) head of a response, read without trusting its framing. */
async function finalHead(port: number, path: string): Promise<ParsedResponse> {
  const isComplete = (data: Buffer): boolean => {
    let rest = data;
    for (;;) {
      const end = rest.indexOf('\r\n\r\n');
      if (end === -1) return false;
      if (!/^HTTP\/1\.1 1\d\d/.test(rest.toString('latin1', 0, 12))) return true;
      rest = rest.subarray(end + 4);
    }
  };
  const r = await rawExchange(port, get(path), { until: isComplete, timeoutMs: 3000 });
  let head = parseHead(r.data);
  while (head.status < 200) head = parseHead(head.rest);
  return head;
}

/** Chaos endpoints whose default answer has no head: the query that gives the clamp report a head to be read in. */
const WITH_HEAD: Readonly<Record<string, readonly string[]>> = { '/reset': ['phase=after-head'] };

/** Chaos endpoints that never send a head, so a clamp cannot be reported (their clamps are checked in fault-injection/wire-faults.test.ts). */
const NO_HEAD = new Set(['/garbage']);

/** Endpoints whose GET is a real error in every mode (/mcp's needs a session): their clamps are checked where they are served (agent/mcp-transport.test.ts). */
const NO_GET_ANSWER = new Set(['/mcp']);

/** WebSockets report a clamp in their 101 only; a plain GET is a real 426 (clamps checked in websocket/raw-bytes.test.ts). */
const upgradeOnly = (path: string): boolean => path.startsWith('/ws/');
/** HTTP/2-only paths are a real 421 over HTTP/1.1 (their parameters are checked over HTTP/2 in http2/raw-frames.test.ts). */
const h2Only = (path: string): boolean => path.startsWith('/h2/');

const chaosLines = (head: ParsedResponse): string[] => head.headerLines.filter(([n]) => /^x-chaos-/i.test(n)).map(([n]) => n);

const hosts = [
  ['chaos', serviceRegistries().chaos],
  ['control', serviceRegistries().control],
  ['bots', serviceRegistries().bots],
] as const;

for (const [host, registry] of hosts) {
  t.test(`${host} host: every parameter`, async (t) => {
    const port = host === 'chaos' ? (await startChaos(t, { config })).port : (await startHttp(t, host, config)).port;
    let checked = 0;
    for (const endpoint of registry.endpoints as readonly AnyEndpoint<unknown>[]) {
      if (!allowedMethods(endpoint).includes('GET') || h2Only(endpoint.path)) continue;
      const path = concretePath(endpoint.path);
      for (const [name, spec] of Object.entries(endpoint.params) as [string, Param<unknown>][]) {
        if (spec.in !== 'query') continue;
        const others = baseline(endpoint, name);
        for (const bad of BAD[spec.kind] ?? []) {
          const query = [...others, `${name}=${encodeURIComponent(bad)}`].join('&');
          const head = await finalHead(port, `${path}?${query}`);
          t.equal(head.status, 400, `${endpoint.path} ${name}=${JSON.stringify(bad)}: 400`);
          t.same(chaosLines(head), [], `${endpoint.path} ${name}: a real error carries no X-Chaos-*`);
          const body = JSON.parse(head.rest.toString('utf8').slice(0, Number(head.header('content-length')))) as Record<string, unknown>;
          t.match(body, { endpoint: endpoint.path, error: 'invalid_parameter', requested: bad, param: name }, `${endpoint.path} ${name}: the error shape`);
          t.ok(body.reason && body.accepted, 'with a reason and what is accepted');
          checked++;
        }
        if ((spec.kind === 'int' || spec.kind === 'number') && spec.min !== undefined && !(host === 'chaos' && NO_HEAD.has(endpoint.path)) && !NO_GET_ANSWER.has(endpoint.path) && !upgradeOnly(endpoint.path)) {
          const query = [...others, ...(host === 'chaos' ? (WITH_HEAD[endpoint.path] ?? []) : []), `${name}=${spec.min - 1}`].join('&');
          const head = await finalHead(port, `${path}?${query}`);
          // A chaos 400 (/fail-first's status=400) carries X-Chaos-*; a refusal never does.
          t.ok(head.status !== 400 || chaosLines(head).length > 0, `${endpoint.path} ${name}=${spec.min - 1}: clamped, not refused`);
          const clamped = head.header('x-chaos-clamped') ?? '';
          if (spec.silentClamp) t.notOk(clamped.includes(`${name}=`), `${endpoint.path} ${name}: clamped silently`);
          else {
            const applied = appliedValue(endpoint, name, spec.min);
            t.ok(clamped.split(', ').includes(`${name}=${applied}`), `${endpoint.path} ${name}: X-Chaos-Clamped reports ${name}=${applied} (got ${JSON.stringify(clamped)})`);
          }
          checked++;
        }
      }
    }
    t.ok(checked > 10, `${checked} cases on the ${host} host`);
  });
}
