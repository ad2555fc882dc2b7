// The catalog's ready requests: every endpoint's example (declared or derived
// from its parameters) and every mode link reaches that endpoint with a method
// it serves and parses without a 400; a declared example that does not stops
// start-up. The assets' paths belong to no registry.
import t from 'tap';
import { serviceRegistries } from '../../services/registries.js';
import { CATALOG_ASSETS, CATALOG_ASSET_PREFIX } from '../../shared/catalog/catalog-assets.js';
import { curlLine } from '../../shared/catalog/catalog-page.js';
import { buildCatalog, exampleOf } from '../../shared/catalog/catalog.js';
import type { HostName } from '../../shared/config/config.js';
import { int, oneOf, parseParams, splitQuery } from '../../shared/primitives/params.js';
import { allowedMethods, defineEndpoint, Registry, RegistryError, type AnyEndpoint } from '../../shared/registry/registry.js';
import { testConfig } from '../helpers/servers.js';

const define = defineEndpoint<unknown>();
const noop = (): void => {};
const config = testConfig();
const registries = serviceRegistries() as unknown as Record<HostName, Registry<unknown>>;

/** Why a target does not work for `endpoint` on `registry`, or undefined when it does. */
function problem(registry: Registry<unknown>, endpoint: AnyEndpoint<unknown>, target: string): string | undefined {
  const q = target.indexOf('?');
  const match = registry.match(q === -1 ? target : target.slice(0, q));
  if (match?.endpoint !== endpoint) return `${target} reaches ${match?.endpoint.path ?? 'nothing'}`;
  const parsed = parseParams(endpoint.path, endpoint.params, splitQuery(q === -1 ? '' : target.slice(q + 1)), match.pathValues);
  return parsed.ok ? undefined : `${target}: ${parsed.error.reason}`;
}

t.test('every example and every mode link reaches its endpoint and parses', async (t) => {
  let checked = 0;
  for (const host of ['chaos', 'control', 'bots'] as const) {
    const registry = registries[host];
    const catalog = buildCatalog(registry, config);
    const entries = new Map(catalog.categories.flatMap((g) => g.endpoints).map((e) => [e.id, e]));
    for (const endpoint of registry.endpoints) {
      const example = exampleOf(endpoint, config);
      t.ok(allowedMethods(endpoint).includes(example.method), `${host} ${endpoint.path}: ${example.method} is served`);
      t.equal(problem(registry, endpoint, example.target), undefined, `${host} ${endpoint.path}: ${example.target}`);
      if (example.method !== 'GET') t.ok(example.body, `${host} ${endpoint.path}: a ${example.method} example sends a body`);
      const entry = entries.get(endpoint.id);
      t.equal(entry?.example.url, `${catalog.url}${example.target}`, 'the catalog gives it as an absolute URL');
      const mode = entry?.params.find((p) => p.name === entry.mode_param);
      for (const value of Array.isArray(mode?.accepted) ? (mode?.accepted as string[]) : []) {
        const url = new URL(example.target, 'http://x');
        url.searchParams.set(mode?.name as string, value);
        t.equal(problem(registry, endpoint, url.pathname + url.search), undefined, `${host} ${endpoint.path} ${mode?.name}=${value}`);
        checked++;
      }
      // The twin's example is the twin's own, on the twin's host.
      const twin = registry.twinOf(endpoint);
      if (twin) t.equal(entry?.counterpart_example?.url, `${buildCatalog(registries[twin.host], config).url}${exampleOf(twin.endpoint, config).target}`, `${host} ${endpoint.path}: the twin's own example`);
      else t.equal(entry?.counterpart_example, undefined, `${host} ${endpoint.path}: no twin, no twin example`);
    }
  }
  t.ok(checked > 300, `${checked} mode links checked`);
});

t.test('declared examples where derivation is not enough', async (t) => {
  const target = (host: HostName, id: string): string => exampleOf(registries[host].endpoints.find((e) => e.id === id) as AnyEndpoint<unknown>, config).target;
  t.equal(target('chaos', 'status'), '/status/418', 'a template filled with a telling value');
  t.equal(target('chaos', 'throttle'), '/throttle?id=example', 'a required value derived');
  t.equal(target('chaos', 'truncate'), '/truncate', 'defaults left to apply');
  t.equal(target('bots', 'webfinger'), '/.well-known/webfinger?resource=acct%3Abots%40bots.test', 'from the configuration: the account this host knows');
  const mcp = exampleOf(registries.chaos.endpoints.find((e) => e.id === 'mcp') as AnyEndpoint<unknown>, config);
  t.equal(mcp.method, 'POST');
  t.match(curlLine({ method: mcp.method, url: `http://x${mcp.target}`, content_type: mcp.body?.type, body: mcp.body?.text }), /^curl -v -X POST -H 'Content-Type: application\/json' --data-raw '\{"jsonrpc":"2\.0".*\}' 'http:\/\/x\/mcp'$/);
  t.equal(curlLine({ method: 'GET', url: "http://x/a?b=it's" }), `curl -v 'http://x/a?b=it'\\''s'`, 'a quote in a URL stays one shell word');
});

t.test('a declared example that does not work stops start-up', async (t) => {
  const elsewhere = define({ id: 'a', path: '/a', category: 'status', summary: 'x', params: {}, docs: { example: { target: '/b' } }, handle: noop });
  const b = define({ id: 'b', path: '/b', category: 'status', summary: 'x', params: {}, handle: noop });
  const badValue = define({ id: 'c', path: '/c', category: 'status', summary: 'x', params: { m: oneOf(['x', 'y'], { default: 'x' }), n: int({ min: 1, max: 3, default: 1 }) }, docs: { example: { target: '/c?m=z' } }, handle: noop });
  const method = define({ id: 'd', path: '/d', category: 'status', summary: 'x', params: {}, docs: { example: { method: 'POST' } }, handle: noop });
  let error: unknown;
  try {
    new Registry('chaos', [elsewhere, b, badValue, method]);
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof RegistryError);
  t.match((error as RegistryError).problems, [/"a": example \/b does not reach \/a/, /"c": example \/c\?m=z: m must be one of x, y/, /"d": example method POST is not served/]);
});

t.test('the catalog assets sit where no endpoint does', async (t) => {
  t.ok(CATALOG_ASSETS.size >= 2);
  for (const path of CATALOG_ASSETS.keys()) {
    t.ok(path.startsWith(CATALOG_ASSET_PREFIX));
    for (const host of ['chaos', 'control', 'bots'] as const) t.equal(registries[host].match(path), undefined, `${host}: nothing at ${path}`);
  }
  for (const host of ['chaos', 'control', 'bots'] as const) {
    for (const e of registries[host].endpoints) {
      for (const path of [e.path, ...(e.aliases ?? [])]) t.notOk(path.startsWith(CATALOG_ASSET_PREFIX), `${host} ${path} is outside ${CATALOG_ASSET_PREFIX}`);
    }
  }
});
