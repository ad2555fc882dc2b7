import { readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ConfigError, loadConfig } from '../../shared/config/config.js';

t.test('defaults are the embedded stack', async (t) => {
  const c = loadConfig({});
  t.same(c.ports, { chaos: 8081, control: 8082, bots: 8083, front: 8080 });
  t.equal(c.urls.base, 'http://127.0.0.1:8081');
  t.equal(c.urls.control, 'http://127.0.0.1:8082');
  t.equal(c.urls.bots, 'http://127.0.0.1:8083');
  // Three distinct authorities, all on the control port of the loopback.
  t.equal(c.urls.hub, 'http://localhost:8082');
  t.equal(c.urls.identity, 'http://identity.localhost:8082');
  t.equal(c.urls.agents, 'http://agents.localhost:8082');
  t.equal(c.redisUrl, undefined);
  t.same(c.rateLimit, { general: 60, infinite: 10 });
  t.equal(c.logLevel, 'info');
  t.ok(c.trustProxy.empty && !c.trustProxy.isTrusted('127.0.0.1') && !c.trustProxy.isTrusted('::1'), 'nobody is trusted, loopback included');
  t.ok(Object.isFrozen(c) && Object.isFrozen(c.urls), 'frozen');
});

t.test('public URLs follow the ports unless set', async (t) => {
  t.equal(loadConfig({ CHAOS_PORT: '9001' }).urls.base, 'http://127.0.0.1:9001');
  t.equal(loadConfig({ PUBLIC_BASE_URL: 'http://chaos.localhost:8080/' }).urls.base, 'http://chaos.localhost:8080');
  const moved = loadConfig({ CONTROL_PORT: '9002' }).urls;
  t.same([moved.hub, moved.identity, moved.agents], ['http://localhost:9002', 'http://identity.localhost:9002', 'http://agents.localhost:9002']);
  const set = loadConfig({ PUBLIC_HUB_URL: 'https://hub.example', PUBLIC_IDENTITY_URL: 'https://id.example', PUBLIC_AGENTS_URL: 'https://agents.example' }).urls;
  t.same([set.hub, set.identity, set.agents], ['https://hub.example', 'https://id.example', 'https://agents.example']);
});

t.test('default public authorities never collide', async (t) => {
  const u = loadConfig({}).urls;
  const authorities = [u.base, u.control, u.bots, u.hub, u.identity, u.agents].map((url) => new URL(url).host);
  t.equal(new Set(authorities).size, authorities.length, authorities.join(' '));
});

t.test('TRUST_PROXY: addresses, CIDRs and loopback', async (t) => {
  const list = loadConfig({ TRUST_PROXY: '127.0.0.1, ::1 ,10.0.0.0/8,fd00::/8' }).trustProxy;
  t.same(list.entries, ['127.0.0.1/32', '::1/128', '10.0.0.0/8', 'fd00::/8']);
  t.ok(list.isTrusted('10.9.8.7') && list.isTrusted('::ffff:127.0.0.1') && list.isTrusted('fd00::5'));
  t.same(loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy.entries, ['127.0.0.0/8', '::1/128']);
  t.ok(loadConfig({ TRUST_PROXY: '' }).trustProxy.empty, 'set empty: nobody');
});

const bad: [string, string, RegExp][] = [
  ['CHAOS_PORT', 'abc', /CHAOS_PORT="abc" is not valid: expected an integer from 0 to 65535/],
  ['CONTROL_PORT', '70000', /CONTROL_PORT/],
  ['RATE_LIMIT_GENERAL', '-1', /RATE_LIMIT_GENERAL/],
  ['LOG_LEVEL', 'loud', /LOG_LEVEL="loud" is not valid: expected one of fatal, error/],
  ['PUBLIC_BASE_URL', 'not a url', /PUBLIC_BASE_URL/],
  ['PUBLIC_BOTS_URL', 'ftp://x', /PUBLIC_BOTS_URL/],
  ['PUBLIC_HUB_URL', 'http://x/with/path', /PUBLIC_HUB_URL/],
  ['REDIS_URL', 'localhost:6379', /REDIS_URL/],
  ['TRUST_PROXY', 'evil host', /TRUST_PROXY/],
  ['TRUST_PROXY', '::::', /TRUST_PROXY="::::" is not valid: expected .*"::::" is not an IP address, a CIDR or "loopback"/],
  ['TRUST_PROXY', '127.0.0.1,1.2.3.4/33', /TRUST_PROXY=.*"1\.2\.3\.4\/33" is not/],
  ['TRUST_PROXY', '::1/129', /TRUST_PROXY/],
  ['TRUST_PROXY', '10.0.0.0/', /TRUST_PROXY/],
  ['TRUST_PROXY', 'localhost', /TRUST_PROXY/],
  ['SHUTDOWN_GRACE_MS', '1.5', /SHUTDOWN_GRACE_MS/],
  ['COMPARE_VIA', 'haproxy', /COMPARE_VIA="haproxy" is not valid: expected host:port/],
  ['COMPARE_VIA', 'haproxy:0', /COMPARE_VIA/],
  ['COMPARE_VIA', 'haproxy:70000', /COMPARE_VIA/],
  ['COMPARE_VIA', 'http://haproxy:8080', /COMPARE_VIA/],
  ['COMPARE_VIA', '[nope]:8080', /COMPARE_VIA/],
  ['COMPARE_VIA', '::1:8080', /COMPARE_VIA/],
];

t.test('COMPARE_VIA: where the hub\'s /compare connects, when set', async (t) => {
  t.equal(loadConfig({}).compareVia, undefined, 'unset: each public URL\'s own host and port');
  t.same(loadConfig({ COMPARE_VIA: 'haproxy:8080' }).compareVia, { host: 'haproxy', port: 8080 });
  t.same(loadConfig({ COMPARE_VIA: '10.0.0.7:80' }).compareVia, { host: '10.0.0.7', port: 80 });
  t.same(loadConfig({ COMPARE_VIA: '[fd00::1]:8080' }).compareVia, { host: 'fd00::1', port: 8080 }, 'IPv6 in brackets');
});
for (const [name, value, message] of bad) {
  t.test(`${name}=${value} stops start-up`, async (t) => {
    t.throws(() => loadConfig({ [name]: value }), message);
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      t.ok(error instanceof ConfigError);
      t.equal((error as ConfigError).variable, name);
    }
  });
}

t.test('BIND_ADDRESS is an address, refused otherwise with the variable named', async (t) => {
  for (const ok of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost']) t.equal(loadConfig({ BIND_ADDRESS: ok }).bindAddress, ok);
  for (const bad of ['nonsense', '127.0.0.1:80', '256.1.1.1', 'example.com']) {
    t.throws(() => loadConfig({ BIND_ADDRESS: bad }), { name: 'ConfigError', variable: 'BIND_ADDRESS' }, bad);
  }
});

t.test('PATH is read here too: the directories make up looks in for its programs', async (t) => {
  t.same(loadConfig({ PATH: ['/usr/local/bin', '', '/usr/bin'].join(delimiter) }).programPath, ['/usr/local/bin', '/usr/bin'], 'empty entries dropped');
  t.same(loadConfig({}).programPath, []);
  t.ok(Object.isFrozen(loadConfig({ PATH: '/bin' }).programPath), 'frozen');
});

t.test('TRUST_PROXY reads its canonical entries back as they are (make up hands them on to the replicas)', async (t) => {
  const given = loadConfig({ TRUST_PROXY: '10.1.2.3, fd00::/8 ,192.168.0.0/16' }).trustProxy;
  const handedOn = loadConfig({ TRUST_PROXY: ['loopback', ...given.entries].join(',') }).trustProxy;
  t.same(handedOn.entries, ['127.0.0.0/8', '::1/128', ...given.entries]);
});

/** The repository root: this file runs as dist/tests/unit/config.test.js. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** `process.env`, `process['env']`, `process?.env` or `{ env } = process`: every way code reaches the environment. */
const PROCESS_ENV_RE = /\bprocess\s*(?:\?\.|\.)\s*env\b|\bprocess\s*\[\s*['"`]env['"`]\s*\]|\{[^}]*\benv\b[^}]*\}\s*=\s*(?:globalThis\.)?process\b/;
const stripComments = (source: string): string => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

t.test('the process.env checker finds every form (a check that cannot fail is no check)', async (t) => {
  for (const reads of ['const p = process.env.PATH;', "process['env'].X", 'process?.env', 'const { env } = process;', 'const { argv, env: e } = globalThis.process;']) {
    t.match(stripComments(reads), PROCESS_ENV_RE, reads);
  }
  for (const clean of ['// reads process.env here', '/* process.env */ const x = 1;', 'loadConfig(env)', 'const processEnv = 1;']) {
    t.notMatch(stripComments(clean), PROCESS_ENV_RE, clean);
  }
});

t.test('nothing reads process.env but shared/runtime/run.ts, which hands it to loadConfig (STYLE §7)', async (t) => {
  const files = ['services', 'shared', 'proxy'].flatMap(sourcesUnder);
  t.ok(files.includes('services/main.ts') && files.length > 100, `the scan sees the sources (${files.length} files)`);
  const readers = files.filter((file) => PROCESS_ENV_RE.test(stripComments(readFileSync(join(ROOT, file), 'utf8'))));
  t.same(readers, ['shared/runtime/run.ts']);
});
