// What createRegistries declares and checks across hosts: every twin resolves
// on its host (or is null), the mode parameter names an enum, /random leaves
// out exactly the endpoints that hold the connection, and lists derive.
import t from 'tap';
import { botsEndpoints } from '../../services/bots/endpoints/index.js';
import { chaosEndpoints } from '../../services/chaos/endpoints/index.js';
import { controlEndpoints } from '../../services/control/endpoints/index.js';
import { serviceRegistries } from '../../services/registries.js';
import { counterpartUrl } from '../../shared/catalog/catalog.js';
import { int, oneOf, str } from '../../shared/primitives/params.js';
import { neverRandom } from '../../shared/registry/random-pick.js';
import { createRegistries } from '../../shared/registry/registries.js';
import { counterpartOf, defineEndpoint, modeOf, modeParamOf, Registry, RegistryError, type AnyEndpoint } from '../../shared/registry/registry.js';
import { testConfig } from '../helpers/servers.js';

const define = defineEndpoint<unknown>();
const noop = (): void => {};

function thrown(fn: () => unknown): RegistryError | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof RegistryError) return error;
    throw error;
  }
}

const lists = { chaos: chaosEndpoints, control: controlEndpoints, bots: botsEndpoints } as {
  chaos: readonly AnyEndpoint<unknown>[];
  control: readonly AnyEndpoint<unknown>[];
  bots: readonly AnyEndpoint<unknown>[];
};

t.test('the real registries build, and every declared twin is served where it points', async (t) => {
  const registries = serviceRegistries();
  for (const host of ['chaos', 'control', 'bots'] as const) {
    for (const endpoint of registries[host].endpoints as readonly AnyEndpoint<unknown>[]) {
      const twin = counterpartOf(host, endpoint);
      if (twin === null) continue;
      t.not(twin.host, host, `${host} ${endpoint.id}: the twin is on another host`);
      t.ok((registries[twin.host] as Registry<unknown>).match(twin.path), `${host} ${endpoint.id} → ${twin.host} ${twin.path}`);
    }
  }
});

t.test('control endpoints without a chaos twin say so', async (t) => {
  const none = controlEndpoints.filter((e) => e.counterpart === null).map((e) => e.id).sort();
  t.same(none, ['agent-skill', 'echo-agent', 'infinite', 'oauth-authorize', 'oauth-token', 'ws-echo']);
  const urls = testConfig().urls;
  for (const endpoint of controlEndpoints) {
    if (endpoint.counterpart === null) t.equal(counterpartUrl('control', endpoint, urls), null, `${endpoint.id} names no twin`);
  }
  const status = controlEndpoints.find((e) => e.id === 'status') as AnyEndpoint<unknown>;
  t.equal(counterpartUrl('control', status, urls, '/status/418'), `${urls.base}/status/418`, 'a template twin is named by the concrete path');
  t.equal(counterpartUrl('control', status, urls), `${urls.base}/status/{code}`, '… and by its template in the catalog');
});

t.test('a twin that is not served stops start-up, naming every one', async (t) => {
  const dangling = define({ id: 'dangling', path: '/no-twin-here', category: 'status', summary: 'x', params: {}, handle: noop });
  const elsewhere = define({ id: 'elsewhere', path: '/elsewhere', category: 'status', summary: 'x', params: {}, counterpart: '/nope', handle: noop });
  const error = thrown(() => createRegistries({ ...lists, control: [...lists.control, dangling, elsewhere] }));
  t.ok(error, 'a RegistryError');
  t.equal(error?.host, 'control');
  t.match(error?.problems, [/control endpoint "dangling": counterpart \/no-twin-here is not served on the chaos host/, /"elsewhere": counterpart \/nope/]);
  const none = define({ id: 'none', path: '/none', category: 'status', summary: 'x', params: {}, counterpart: null, handle: noop });
  t.doesNotThrow(() => createRegistries({ ...lists, control: [...lists.control, none] }), 'counterpart: null is fine');
  const self = define({ id: 'self', path: '/self', category: 'status', summary: 'x', params: {}, counterpart: { host: 'control' }, handle: noop });
  t.match(thrown(() => new Registry('control', [self]))?.problems, [/counterpart must be on another host/]);
});

t.test('modeParam: the parameter named mode by default, explicit elsewhere, always an enum', async (t) => {
  const byId = <E extends { readonly id: string }>(list: readonly E[], id: string): E => list.find((e) => e.id === id) as E;
  t.equal(modeParamOf(byId(chaosEndpoints, 'json')), 'mode');
  t.equal(modeParamOf(byId(chaosEndpoints, 'wrong-content-type')), 'type');
  t.equal(modeParamOf(byId(chaosEndpoints, 'auth-required')), 'scheme');
  t.equal(modeParamOf(byId(chaosEndpoints, 'semantic-drift')), 'schema');
  t.equal(modeParamOf(byId(controlEndpoints, 'app-icon')), 'size');
  t.equal(modeParamOf(byId(chaosEndpoints, 'truncate')), undefined);
  // Every endpoint with an enum parameter names its mode (except /infinite, whose path words are unbounded).
  for (const endpoint of [...chaosEndpoints, ...controlEndpoints, ...botsEndpoints] as AnyEndpoint<unknown>[]) {
    const enums = Object.entries(endpoint.params).filter(([, s]) => s.kind === 'enum' && s.in === 'query');
    if (enums.length > 0) t.not(modeParamOf(endpoint), undefined, `${endpoint.id} names its mode`);
  }

  t.equal(modeOf(byId(chaosEndpoints, 'wrong-content-type'), { type: 'xml-as-json' }), 'xml-as-json');
  t.equal(modeOf(byId(chaosEndpoints, 'truncate'), { at: 5 }), undefined);
  const bad = define({ id: 'bad', path: '/bad', category: 'status', summary: 'x', params: { s: str({ maxLength: 3 }) }, docs: { modeParam: 's' }, handle: noop });
  t.match(thrown(() => new Registry('chaos', [bad]))?.problems, [/modeParam "s" must name an enum parameter/]);
  const missing = define({ id: 'missing', path: '/missing', category: 'status', summary: 'x', params: { m: oneOf(['a', 'b'], { default: 'a' }) }, docs: { modeParam: 'nope' }, handle: noop });
  t.match(thrown(() => new Registry('chaos', [missing]))?.problems, [/modeParam "nope"/]);
});

t.test('picks: /random draws a parameter from its picks, which must be in range', async (t) => {
  const status = chaosEndpoints.find((e) => e.id === 'status') as AnyEndpoint<unknown>;
  t.ok(status.params.code?.picks?.includes(418), '/status/{code} carries its picks');
  const wide = define({ id: 'wide', path: '/wide', category: 'status', summary: 'x', params: { n: int({ min: 1, max: 5, picks: [3, 9] }) }, handle: noop });
  t.match(thrown(() => new Registry('chaos', [wide]))?.problems, [/pick 9 is outside/]);
});

t.test('/random: its summary names exactly the endpoints that hold the connection, from the registry', async (t) => {
  const held = chaosEndpoints.filter((e) => e.holdsConnection === true).map((e) => e.path);
  t.same([...held].sort(), [
    '/bytes', '/drip', '/h2/flow', '/h2/settings', '/h2/stall', '/h2/upload-stall', '/jitter', '/mcp', '/mix', '/partial-stream', '/slow', '/slow-headers', '/sse', '/stall',
    '/ws/close', '/ws/deflate', '/ws/frames', '/ws/handshake', '/ws/ping-flood', '/ws/pong-lie',
  ]);
  const named = <C>(registry: Registry<C>): string[] => {
    const random = registry.endpoints.find((e) => e.id === 'random') as AnyEndpoint<C>;
    t.ok(neverRandom(random), '/random never picks itself');
    return (/\(never ([^)]*?), which stall or hold the connection\)/.exec(random.summary)?.[1] ?? '').split(/, | or /);
  };
  t.same(named(serviceRegistries().chaos), held, 'the summary and the definitions agree, in registry order');
  // A new holding endpoint joins the summary without anyone typing it there.
  const holder = define({
    id: 'holder', path: '/holder', category: 'latency', summary: 'x', params: {}, counterpart: null, holding: { longestMs: () => 1 }, handle: noop,
  });
  t.same(named(serviceRegistries({ chaos: [holder] }).chaos), [...held.slice(0, 5), '/holder', ...held.slice(5)], 'grouped with its category');
});
