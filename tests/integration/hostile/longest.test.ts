// Every endpoint that holds or trickles states its longest response in the
// catalog, and really ends by then: each is requested with every extreme of
// its numeric parameters and every value of its enums, all at once, and each
// connection must end (complete and closed, or cut) within its stated bound.
import t from 'tap';
import { buildCatalog } from '../../../shared/catalog/catalog.js';
import type { Param, ParamSpecs } from '../../../shared/primitives/params.js';
import type { Registry } from '../../../shared/registry/registry.js';
import { get, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';
import { serviceRegistries } from '../../../services/registries.js';

// Short service bounds, so the slowest schedules fit in a few seconds (/slow's 15 s is its own).
const config = testConfig({ MAX_RESPONSE_MS: '1500', HOLD_MS: '1000' });
const registry = serviceRegistries().chaos;
const holding = registry.endpoints.filter((e) => e.holdsConnection);

/** Worst cases that live in parameters no extreme reaches (a grammar's value). */
const WORST: Readonly<Record<string, readonly string[]>> = {
  '/mix': ['delay=15000&fault=slow-head:1000'],
};

/** Every combination of each int's min and max and each enum's values (other parameters left to their defaults). */
function extremes(endpoint: { readonly params: ParamSpecs }): string[] {
  let queries: string[][] = [[]];
  for (const [name, spec] of Object.entries(endpoint.params) as [string, Param<unknown>][]) {
    if (spec.in !== 'query') continue;
    const values =
      spec.kind === 'int' && spec.min !== undefined && spec.max !== undefined
        ? [spec.min, spec.max].map(String)
        : spec.kind === 'enum' && Array.isArray(spec.accepted)
          ? (spec.accepted as string[])
          : [];
    if (values.length === 0) continue;
    queries = queries.flatMap((q) => values.map((v) => [...q, `${name}=${v}`]));
  }
  return queries.map((q) => q.join('&'));
}

t.test('the catalog states the longest response of every holding endpoint', async (t) => {
  const catalog = buildCatalog(registry as Registry<unknown>, config);
  const entries = catalog.categories.flatMap((c) => c.endpoints);
  t.ok(holding.length >= 4);
  for (const e of holding) {
    t.equal(entries.find((x) => x.id === e.id)?.longest_ms, e.longestMs?.(config), `${e.path}: longest_ms`);
  }
});

t.test('each holding endpoint ends within its stated bound at every extreme', async (t) => {
  const chaos = (await startChaos(t, { config })).port;
  const control = (await startHttp(t, 'control', config)).port;
  const controlHolding = serviceRegistries().control.endpoints.filter((e) => e.holdsConnection);
  const runs = [
    ...holding.map((e) => ({ e, port: chaos })),
    ...controlHolding.map((e) => ({ e, port: control })),
  ].flatMap(({ e, port }) =>
    [...extremes(e), ...(WORST[e.path] ?? [])].map((query) => ({ e, port, query, bound: e.longestMs?.(config) ?? 0 })),
  );
  t.ok(runs.length >= 10, `${runs.length} requests`);
  const results = await Promise.all(
    runs.map(async ({ e, port, query, bound }) => {
      const started = performance.now();
      const r = await rawExchange(port, get(`${e.path}?${query}`, { Connection: 'close' }), { timeoutMs: bound + 4000 });
      return { label: `${e.path}?${query}`, bound, end: r.end, took: performance.now() - started };
    }),
  );
  for (const r of results) {
    t.not(r.end, 'timeout', `${r.label}: the connection ends`);
    t.ok(r.took <= r.bound + 1500, `${r.label}: ended after ${Math.round(r.took)} ms (bound ${r.bound} ms)`);
  }
});
