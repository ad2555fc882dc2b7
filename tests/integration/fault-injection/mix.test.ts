// /mix speaks the fault registry's language (issue 24 §3): every registered
// wire fault (services/chaos/faults/) is one of /mix's faults under its own
// name, in the grammar both twins parse, the catalog, the OpenAPI schema and
// docs/fault-injection.md, and does on the wire what its terms say. The
// spellings the docs promised before the rename still work, as what they meant.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { currentBlock, docsPath, mixFaultsBlock } from '../../../scripts/mix-faults-table.js';
import { JUNK_EXTENSIONS } from '../../../services/chaos/faults/chunked-corrupt.js';
import { FAULT_SLUGS } from '../../../services/chaos/faults/index.js';
import { serviceRegistries } from '../../../services/registries.js';
import { buildCatalog } from '../../../shared/catalog/catalog.js';
import { buildOpenApi, type OpenApiParameter } from '../../../shared/catalog/openapi.js';
import {
  CHUNKED_CORRUPTIONS, FAULT_ALIASES, FAULT_NAME_ALIASES, FAULT_NAMES, FAULT_TERMS, MIX_PARAMS, parseMixFault, type ChunkedCorruption,
  type FaultName,
} from '../../../shared/content/fault-injection/index.js';
import { seededBytes } from '../../../shared/primitives/seed.js';
import type { Registry } from '../../../shared/registry/registry.js';
import { exchange } from '../../helpers/final-response.js';
import { get, parseHead, rawExchange, type RawResult } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

const config = testConfig({ RATE_LIMIT_GENERAL: '0' });
const REGISTERED: readonly string[] = [...FAULT_SLUGS];

/** The fault name each catalog form starts with (`truncate-at[:N] (…)`). */
function formNames(forms: string | readonly string[]): string[] {
  return (Array.isArray(forms) ? forms : [forms]).map((form: string) => /^[a-z-]+/.exec(form)?.[0] ?? form);
}

/** Values with an argument for a fault: each end of its range, each word, a header line. */
function withArguments(name: FaultName): string[] {
  const a = FAULT_TERMS[name].argument;
  if (a.kind === 'int') return [`${name}:${a.min}`, `${name}:${a.max}`];
  if (a.kind === 'word') return a.values.map((v: string) => `${name}:${v}`);
  return [`${name}:X-Test:1`, `${name}:Transfer-Encoding:chunked`];
}

t.test('the registry, the /mix grammar, the catalog, OpenAPI and the docs name the same faults', async (t) => {
  t.ok(REGISTERED.length >= 9, `${REGISTERED.length} registered faults`);
  t.same([...FAULT_NAMES], REGISTERED, 'the names /mix parses are the registered faults, in order');
  t.same(formNames(MIX_PARAMS.fault.accepted), REGISTERED, "the grammar's forms, one per registered fault");
  for (const name of FAULT_NAMES) {
    t.match(parseMixFault(name), { ok: true, value: { name, spelled: name } }, `${name} alone`);
    for (const value of withArguments(name)) t.match(parseMixFault(value), { ok: true, value: { name } }, value);
  }
  const { chaos, control } = serviceRegistries();
  const registries: readonly [string, Registry<unknown>][] = [
    ['chaos', chaos as Registry<unknown>],
    ['control', control as Registry<unknown>],
  ];
  for (const [host, registry] of registries) {
    const mix = buildCatalog(registry, config).categories.flatMap((c) => c.endpoints).find((e) => e.path === '/mix');
    t.same(formNames(mix?.params.find((p) => p.name === 'fault')?.accepted ?? []), REGISTERED, `${host} catalog: the fault values`);
    const op = buildOpenApi(registry, config).paths['/mix']?.get;
    const schema = op?.parameters?.find((p: OpenApiParameter) => p.name === 'fault')?.schema;
    t.same(schema?.anyOf?.[0]?.enum, REGISTERED, `${host} OpenAPI: the enum of fault names`);
    const whole = new RegExp(schema?.pattern ?? '^$', 'u');
    const argued = new RegExp(schema?.anyOf?.[1]?.pattern ?? '^$', 'u');
    for (const name of FAULT_NAMES) {
      t.ok(whole.test(name), `${host} OpenAPI pattern: ${name}`);
      for (const value of withArguments(name)) t.ok(whole.test(value) && argued.test(value), `${host} OpenAPI patterns: ${value}`);
    }
    for (const alias of [...Object.keys(FAULT_ALIASES), ...Object.keys(FAULT_NAME_ALIASES).map((n) => `${n}:7`)]) t.ok(whole.test(alias), `${host} OpenAPI pattern: older ${alias}`);
  }
  const block = currentBlock(readFileSync(docsPath(), 'utf8'));
  t.equal(block, mixFaultsBlock(), 'docs/fault-injection.md: the /mix fault table is current (make readme)');
  for (const name of FAULT_NAMES) t.ok(block?.includes(`\n| \`${name}\` |`), `docs: a row for ${name}`);
});

const chaos = (await startChaos(t, { config })).port;
const control = (await startHttp(t, 'control', config)).port;

/** 100 seeded body bytes ('mix'), the fault, and a close after the answer. */
function ask(fault: string, options: { readonly timeoutMs?: number } = {}): Promise<RawResult> {
  return rawExchange(chaos, get(`/mix?body=bytes:100&fault=${fault}`, { Connection: 'close' }), { timeoutMs: options.timeoutMs ?? 8000 });
}

const BODY = seededBytes('mix', 100);
const withoutDate = (data: Buffer): string => data.toString('latin1').replace(/\r\nDate: [^\r]*/, '');

type Check = (t: Test) => Promise<void>;

/** A chunked-corrupt kind, as the bytes after the head show it. */
const CHUNKED: Readonly<Record<ChunkedCorruption, (rest: string) => boolean>> = {
  'bad-size': (rest) => rest.startsWith('zz\r\n'),
  overstated: (rest) => rest.startsWith(`${(101).toString(16)}\r\n`),
  'cut-chunk': (rest) => rest === `${(100 + 1024).toString(16)}\r\n${BODY.toString('latin1')}`,
  'no-last-chunk': (rest) => rest === `64\r\n${BODY.toString('latin1')}\r\n`,
  'junk-extensions': (rest) => rest.startsWith(`64${JUNK_EXTENSIONS}\r\n`),
  'junk-trailers': (rest) => rest.includes('\r\nthis is not a field\r\n'),
  'cl-and-te': (rest) => rest.endsWith('\r\n0\r\n\r\n'),
};

/** What each registered fault does to /mix?body=bytes:100, on a raw socket. A fault added without a check here fails below. */
const WIRE: Readonly<Record<FaultName, Check>> = {
  'delay-first-byte': async (t) => {
    const r = await ask('delay-first-byte:300');
    t.ok((r.arrivals[0]?.at ?? 0) >= 290, `the first byte after ${r.arrivals[0]?.at.toFixed(0)} ms`);
    t.ok(parseHead(r.data).rest.equals(BODY), 'then the whole answer');
    t.equal(parseHead(r.data).header('x-chaos-mix'), 'status=200, body=bytes:100, fault=delay-first-byte:300');
  },
  'slow-head': async (t) => {
    const r = await ask('slow-head:40');
    const head = parseHead(r.data);
    t.ok(r.arrivals.length >= 5, `the head in pieces (${r.arrivals.length} arrivals)`);
    t.ok(r.elapsedMs >= 9 * 40 - 20, `ten pieces 40 ms apart (${r.elapsedMs.toFixed(0)} ms)`);
    t.ok(head.rest.equals(BODY));
  },
  drip: async (t) => {
    const r = await ask('drip:40');
    const head = parseHead(r.data);
    const bodyArrivals = r.arrivals.filter((a) => a.at > (r.arrivals[0]?.at ?? 0) + 20);
    t.ok(bodyArrivals.length >= 5, `the body in pieces after the head (${bodyArrivals.length} later arrivals)`);
    t.ok(r.elapsedMs >= 9 * 40 - 20, `ten pieces 40 ms apart (${r.elapsedMs.toFixed(0)} ms)`);
    t.ok(head.rest.equals(BODY), 'all of it');
    t.equal(head.header('content-length'), '100');
  },
  'truncate-at': async (t) => {
    const r = await ask('truncate-at:7');
    t.equal(r.end, 'fin');
    t.equal(parseHead(r.data).header('content-length'), '100', 'the head promises all');
    t.ok(parseHead(r.data).rest.equals(BODY.subarray(0, 7)), '7 bytes come');
  },
  'reset-at': async (t) => {
    const before = await ask('reset-at:before-head');
    t.same([before.end, before.data.length], ['reset', 0], 'before-head: nothing, a reset');
    const after = await ask('reset-at:after-head');
    t.equal(after.end, 'reset', 'after-head: a reset');
    t.equal(parseHead(after.data).rest.length, 0, '…right after the head');
    const mid = await ask('reset-at');
    t.equal(mid.end, 'reset', 'alone: mid-body');
    t.ok(parseHead(mid.data).rest.equals(BODY.subarray(0, 50)), '…after half the body');
  },
  garbage: async (t) => {
    const r = await ask('garbage:10');
    t.equal(r.end, 'fin');
    t.ok(r.data.equals(seededBytes('mix', 10)), '10 seeded bytes, no head');
    const none = await ask('garbage:0');
    t.same([none.end, none.data.length], ['fin', 0], 'garbage:0: nothing, a FIN');
    t.equal((await ask('garbage')).data.length, 1024, 'alone: 1024 bytes');
  },
  'close-early': async (t) => {
    const r = await ask('close-early:30');
    const head = parseHead(r.data);
    t.equal(r.end, 'fin');
    t.equal(head.header('content-length'), undefined, 'no Content-Length');
    t.equal(head.header('connection'), 'close');
    t.ok(head.rest.equals(BODY.subarray(0, 30)), '30 bytes, then the close');
    t.ok(parseHead((await ask('close-early')).data).rest.equals(BODY), 'alone: the whole body, close-delimited');
  },
  'header-inject': async (t) => {
    const r = await ask('header-inject:X-Test:%20injected%20');
    const head = parseHead(r.data);
    t.equal(head.header('x-test'), 'injected', 'the line is added');
    t.equal(head.header('x-chaos-mix'), 'status=200, body=bytes:100, fault=header-inject:X-Test', 'named, not its value');
    t.same(parseHead((await ask('header-inject')).data).headers('content-length'), ['100', '0'], 'alone: a second Content-Length that contradicts the first');
  },
  'chunked-corrupt': async (t) => {
    for (const kind of CHUNKED_CORRUPTIONS) {
      const r = await ask(`chunked-corrupt:${kind}`);
      const head = parseHead(r.data);
      t.equal(head.header('transfer-encoding'), 'chunked', `${kind}: chunked`);
      t.equal(head.header('content-length'), kind === 'cl-and-te' ? '100' : undefined, `${kind}: Content-Length only for cl-and-te`);
      t.ok(CHUNKED[kind](head.rest.toString('latin1')), `${kind}: the framing breaks as named`);
    }
    t.match(parseHead((await ask('chunked-corrupt')).data).rest.toString('latin1'), /^zz\r\n/, 'alone: bad-size');
  },
};

t.test('every registered fault does on the wire what its terms say', async (t) => {
  for (const name of REGISTERED) {
    const check = WIRE[name as FaultName];
    if (!t.ok(check, `${name}: a wire check`)) continue;
    await t.test(name, check);
  }
});

t.test('the spellings the docs promised still work, as the faults they meant', async (t) => {
  const olds: [string, string][] = [
    ...Object.entries(FAULT_ALIASES),
    ...Object.entries(FAULT_NAME_ALIASES).map(([alias, name]): [string, string] => [`${alias}:7`, `${name}:7`]),
  ];
  t.same(olds.map(([old]) => old).sort(), ['chunked-bad-size', 'empty', 'reset-before-head', 'reset-mid-body', 'truncate:7']);
  for (const [old, meant] of olds) {
    const [a, b] = [await ask(old), await ask(meant)];
    t.equal(withoutDate(a.data), withoutDate(b.data), `${old}: the bytes of ${meant}`);
    t.equal(a.end, b.end, `${old}: the end of ${meant}`);
  }
});

t.test('the control twin parses the same grammar and delivers the answer whole', async (t) => {
  const values = [...FAULT_NAMES.flatMap((name) => [name, ...withArguments(name)]), ...Object.keys(FAULT_ALIASES), 'truncate:7'];
  for (const value of values) {
    const ex = await exchange(control, get(`/mix?body=bytes:100&fault=${encodeURIComponent(value)}`));
    t.equal(ex.response.status, 200, `control ${value}: 200`);
    t.ok(ex.body.equals(BODY), `control ${value}: the whole body`);
  }
  const bad: [string, RegExp][] = [
    ['header-inject:X-Chaos-Forged:1', /header-inject:Name:Value: X-Chaos-Forged is set by the service/],
    ['header-inject:X-A:%0D%0Ainjected', /control character/],
    ['reset-at:sideways', /reset-at:PHASE takes one of before-head, after-head, mid-body/],
    ['garbage:65537', /garbage:N takes N from 0 to 65536/],
    ['delay-first-byte:0', /delay-first-byte:MS takes MS from 1 to 9000/],
    ['drip:1001', /drip:MS takes MS from 1 to 1000/],
    ['empty:1', /not a fault/],
  ];
  for (const port of [chaos, control]) {
    for (const [value, reason] of bad) {
      const ex = await exchange(port, get(`/mix?fault=${value}`));
      t.equal(ex.response.status, 400, `${value}: 400`);
      t.match(JSON.parse(ex.body.toString()), { error: 'invalid_parameter', param: 'fault', reason }, `${value}: the reason`);
    }
  }
});
