// The TLS hosts in the chaos host's OpenAPI document (issue 26): with TLS_DIR
// set, a server templated on the mode, the `tls` tag and x-tls naming each
// mode's host, defect and expected client behaviour, as /tls/hosts.json does;
// none of it on control, or without TLS. The document stays valid OpenAPI 3.1.
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { serviceRegistries } from '../../services/registries.js';
import { buildOpenApi } from '../../shared/catalog/openapi.js';
import { TLS_MODE_INFO, TLS_MODES } from '../../shared/tls/modes.js';
import { testConfig } from '../helpers/servers.js';

t.test('the chaos document describes the TLS hosts when TLS is on', async (t) => {
  const registries = serviceRegistries();
  const config = testConfig({ TLS_DIR: '/nonexistent-tls-dir', PUBLIC_TLS_PORT: '8443' });
  const document = buildOpenApi(registries.chaos, config);
  const server = document.servers.find((s) => s.url.startsWith('https://'));
  t.equal(server?.url, 'https://{mode}.tls.localhost:8443', 'a server templated on the mode, on PUBLIC_TLS_PORT');
  t.same(server?.variables?.mode?.enum, TLS_MODES, 'every mode');
  t.equal(server?.variables?.mode?.default, 'good', 'the good twin by default');
  t.ok(document.tags.some((tag) => tag.name === 'tls'), 'the tls category');
  const tls = document['x-tls'];
  t.equal(tls?.root, `${config.urls.hub}/tls/root.pem`, 'the published root');
  t.equal(tls?.hosts_json, `${config.urls.hub}/tls/hosts.json`);
  t.same(tls?.modes.map((m) => m.url), TLS_MODES.map((mode) => `https://${mode}.tls.localhost:8443/`), 'each mode host');
  t.same(tls?.modes.map((m) => m.expect), TLS_MODES.map((mode) => TLS_MODE_INFO[mode].expect), 'what a correct client does');
  const result = await new Validator().validate(JSON.parse(JSON.stringify(document)) as Record<string, unknown>);
  t.ok(result.valid, `valid OpenAPI 3.1: ${JSON.stringify(result.errors ?? '').slice(0, 300)}`);
});

t.test('no TLS hosts on control, or without TLS_DIR', async (t) => {
  const registries = serviceRegistries();
  const on = testConfig({ TLS_DIR: '/nonexistent-tls-dir' });
  const control = buildOpenApi(registries.control, on);
  t.notOk(control['x-tls'], 'control: no x-tls');
  t.notOk(control.tags.some((tag) => tag.name === 'tls'), 'control: no tls tag');
  const off = buildOpenApi(registries.chaos, testConfig());
  t.notOk(off['x-tls'], 'TLS off: no x-tls');
  t.equal(off.servers.length, 1, 'TLS off: the chaos host only');
});
