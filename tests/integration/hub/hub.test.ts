// The hub: the control process answers `/` for the hub's host name with the
// catalog of all three hosts, each endpoint linked on the host that serves it.
import t from 'tap';
import { CATALOG_CSP } from '../../../shared/catalog/catalog-assets.js';
import { buildCatalog, type Catalog } from '../../../shared/catalog/catalog.js';
import { createLogger } from '../../../shared/config/log.js';
import { HttpService } from '../../../shared/http/http-service.js';
import { MemoryStore } from '../../../shared/store/memory.js';
import { serviceRegistries } from '../../../services/registries.js';
import { get, parseHead, rawExchange, completeByLength } from '../../helpers/raw.js';
import { stopAtTeardown, testConfig } from '../../helpers/servers.js';

t.test('the hub lists every host; the control host keeps its own catalog', async (t) => {
  const config = testConfig();
  const registries = serviceRegistries();
  const hubCatalogs = [buildCatalog(registries.chaos, config), buildCatalog(registries.control, config), buildCatalog(registries.bots, config)];
  const store = new MemoryStore();
  const service = new HttpService({ host: 'control', config, logger: createLogger('control', 'silent'), registry: registries.control, store, hubCatalogs });
  stopAtTeardown(t, service, store);
  const port = await service.listen(0, '127.0.0.1');
  const ask = async (host: string, accept = 'text/html', path = '/') =>
    parseHead((await rawExchange(port, get(path, { Host: host, Accept: accept }), { until: completeByLength })).data);

  const json = await ask('hub.test:8080', 'application/json');
  t.equal(json.status, 200);
  const hub = JSON.parse(json.rest.toString()) as { hub: string; banner: string; hosts: { host: string; url: string; endpoint_count: number }[] };
  t.equal(hub.hub, 'http://hub.test:8080');
  t.same(hub.hosts.map((h) => [h.host, h.url]), [['chaos', 'http://chaos.test:8080'], ['control', 'http://control.test:8080'], ['bots', 'http://bots.test:8080']]);
  const counts = [registries.chaos.endpoints.length, registries.control.endpoints.length, registries.bots.endpoints.length];
  t.same(hub.hosts.map((h) => h.endpoint_count), counts, 'counts come from the registries');
  t.match(hub.banner, `${counts.reduce((a, b) => a + b)} endpoints on 3 hosts`);

  const hubPage = await ask('HUB.test');
  const html = hubPage.rest.toString();
  t.match(html, '<title>Chaos Endpoint Service — hub</title>', 'the hub by name, any case, no port');
  t.equal(hubPage.header('content-security-policy'), CATALOG_CSP, 'with the catalog pages\' CSP');
  const chaos = (hub as unknown as { hosts: Catalog[] }).hosts[0] as Catalog;
  for (const endpoint of chaos.categories.flatMap((g) => g.endpoints)) {
    const { method, url } = endpoint.example;
    t.ok(url.startsWith('http://chaos.test:8080/'), `chaos ${endpoint.path}: its example is on the chaos host`);
    if (method === 'GET') t.match(html, `href="${url.replace(/&/g, '&#38;')}"`, `chaos ${endpoint.path} is linked on the chaos host`);
    else t.notMatch(html, `href="${url}"`, `${method} ${endpoint.path} is not linked`);
  }
  t.match(html, 'href="http://bots.test:8080/robots.txt"');
  t.match(html, 'href="/_catalog/catalog.css?v=', 'the assets from the hub\'s own origin');

  const own = (await ask('control.test:8080')).rest.toString();
  t.match(own, 'control host</title>', 'the control host keeps its own catalog');
  t.match(own, 'id="control-ep-truncate"');
  t.notMatch(own, 'id="chaos-ep-truncate"', 'and lists only its own endpoints');
  const miss = await ask('hub.test:8080', 'application/json', '/no-such-page');
  t.equal(miss.status, 404, 'an unknown path on the hub is the usual miss');
});
