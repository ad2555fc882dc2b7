// The front door (DESIGN §1) with real HAProxy and Redis: the stack as
// `make up` runs it, started on free loopback ports. The chaos host's lies
// arrive byte for byte as a direct connection gets them; hosts route by name;
// the client address the limiter sees is the real client's; a replica killed
// under load costs only its own in-flight requests and comes back.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { renderPrometheusConfig } from '../../../services/prometheus-config.js';
import { CONTAINER_PLAN, EXAMPLE_FILE, EXAMPLE_PLAN, renderHaproxyConfig, type EdgePlan } from '../../../proxy/haproxy-config.js';
import { rawExchange, get, parseHead, completeByLength, type RawResult } from '../../helpers/raw.js';
import { startChaos, testConfig } from '../../helpers/servers.js';
import { alive, startStack, type Stack } from '../../helpers/stack.js';

function promtoolCheck(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('promtool', ['check', 'config', file], (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }));
  });
}

/** Every folder the checks below made in the system temporary directory: each is removed after its check. */
const checkDirs: string[] = [];

/** Runs `check` on `text` written to a file `name` in a fresh temporary folder, then removes the folder. */
async function withTempFile<T>(prefix: string, name: string, text: string, check: (file: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  checkDirs.push(dir);
  try {
    const file = join(dir, name);
    writeFileSync(file, text);
    return await check(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test('the Prometheus configurations pass promtool', async (t) => {
  const local = renderPrometheusConfig({ replicas: [{ name: 'chaos.1', service: 'chaos', port: 9101 }, { name: 'control.1', service: 'control', port: 9201 }], haproxyPort: 8404 });
  const compose = fileURLToPath(new URL('../../../../deploy/prometheus/prometheus.yml', import.meta.url));
  for (const [name, result] of [
    ['the local stack', await withTempFile('prometheus-check-', 'prometheus.yml', local, promtoolCheck)],
    ['compose', await promtoolCheck(compose)],
  ] as const) {
    t.equal(result.code, 0, `${name}: ${result.output.trim().split('\n').slice(-2).join(' / ')}`);
  }
});

function haproxyCheck(text: string): Promise<{ code: number; output: string }> {
  return withTempFile('haproxy-check-', 'haproxy.cfg', text, (file) =>
    new Promise((resolve) => {
      execFile('haproxy', ['-c', '-f', file], (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }));
    }),
  );
}

t.test('the generated configuration', async (t) => {
  t.equal(readFileSync(EXAMPLE_FILE, 'utf8'), renderHaproxyConfig(CONTAINER_PLAN), 'proxy/haproxy.cfg is the rendering of the container plan (node dist/proxy/haproxy-config.js --write)');
  t.match(readFileSync(EXAMPLE_FILE, 'utf8'), /server-template chaos 16 chaos:8081 resolvers system init-addr none check port 9464/, 'containers find replicas by DNS, checked on their admin port');
  const plans: [string, EdgePlan][] = [
    ['the local example', EXAMPLE_PLAN],
    ['the container plan', CONTAINER_PLAN],
    ['one replica, no per-client cap, no admin port', { ...EXAMPLE_PLAN, replicas: { chaos: [1], control: [2], bots: [3] }, maxConnectionsPerIp: 0, adminPort: 0 }],
    ['an IPv6 bind and other names', { ...EXAMPLE_PLAN, bindAddress: '::1', hosts: { chaos: 'chaos.example.test', control: ['example.test'], bots: 'bots.example.test' } }],
  ];
  for (const [name, plan] of plans) {
    const { code, output } = await haproxyCheck(renderHaproxyConfig(plan));
    t.equal(code, 0, `haproxy -c accepts ${name}: ${output.trim().split('\n').slice(-3).join(' / ')}`);
  }
  const text = renderHaproxyConfig(EXAMPLE_PLAN);
  t.match(text, /frontend fe_edge\n {2}mode tcp/, 'the public frontend is tcp');
  t.match(text, /default-server send-proxy-v2 inter/, 'chaos replicas get PROXY v2');
  t.match(text, /server chaos1 127\.0\.0\.1:9101 check port 9111/, 'each replica is checked on its admin port');
  t.match(text, /http-check send meth GET uri \/readyz/, 'readiness, which a draining replica fails while it still serves');
  t.match(text, /http-request del-header X-Forwarded-For\n {2}option forwardfor/, 'a client-sent X-Forwarded-For is deleted before the real one is set');
  t.match(text, /tcp-request content switch-mode http if HTTP\n/, 'control, bots and the hub become HTTP on the public frontend itself');
  t.notMatch(text, /frontend fe_http/, 'no second HTTP frontend');
  t.match(text, /use_backend be_slow if !\{ var\(txn\.http\) -m bool \} \{ var\(txn\.route\) -m str slow \}/, 'only a first head still coming after FIRST_REQUEST_TIMEOUT_MS (or unreadable) takes the hop to fe_slow');
  t.notMatch(text, /option (tcp|http)log|%ci|%\{\+Q\}r|%r\b|%HU|%HQ/, 'no log format that names the client address or the query string');
  t.match(text, /option dontlog-normal/, 'only errors are logged unless LOG_LEVEL=debug');
  t.notMatch(renderHaproxyConfig({ ...EXAMPLE_PLAN, logEveryRequest: true }), /dontlog-normal/, 'LOG_LEVEL=debug logs every request');
  t.match(text, /sc_conn_cur\(0\) gt 64/, 'the per-client cap at the edge');
  t.match(text, /timeout client 130000ms/, 'idle timeouts above MAX_RESPONSE_MS');
  t.notMatch(text.split('frontend fe_admin')[0] as string, /prometheus-exporter|stats enable/, 'metrics and stats only on the admin frontend');
  t.match(text, /bind 127\.0\.0\.1:8404/, 'the admin frontend binds loopback');
  t.throws(() => renderHaproxyConfig({ ...EXAMPLE_PLAN, hosts: { ...EXAMPLE_PLAN.hosts, bots: 'chaos.localhost' } }), /two services/);
  t.throws(() => renderHaproxyConfig({ ...EXAMPLE_PLAN, hosts: { ...EXAMPLE_PLAN.hosts, chaos: 'chaos.localhost evil' } }), /not a host name/);
  t.throws(() => renderHaproxyConfig({ ...EXAMPLE_PLAN, replicas: { ...EXAMPLE_PLAN.replicas, chaos: [] } }), /no chaos replica/);
  t.throws(() => renderHaproxyConfig({ ...EXAMPLE_PLAN, replicas: { ...EXAMPLE_PLAN.replicas, chaos: { dns: 'chaos 8081', max: 2 } } }), /not a name:port/);
});

t.test('the configuration checks leave no folder in the system temporary directory', async (t) => {
  t.ok(checkDirs.some((dir) => dir.includes('haproxy-check-')) && checkDirs.some((dir) => dir.includes('prometheus-check-')), `both checks ran: ${checkDirs.length} folders`);
  t.same(checkDirs.filter((dir) => existsSync(dir)), [], 'each was removed after its check');
});

const withoutDate = (data: Buffer): string => data.toString('latin1').replace(/\r?\nDate: [^\r\n]*/gi, '');
const closing = (path: string, host: string): string => get(path, { Host: host, Connection: 'close' });

t.test('through the front door', async (t) => {
  const stack = await startStack(t, { RATE_LIMIT_GENERAL: '0' });
  const chaosHost = new URL(stack.urls.chaos).host;
  const direct = await startChaos(t, {
    config: testConfig({
      PUBLIC_BASE_URL: stack.urls.chaos,
      PUBLIC_CONTROL_URL: stack.urls.control,
      PUBLIC_BOTS_URL: stack.urls.bots,
      PUBLIC_HUB_URL: stack.urls.hub,
      PUBLIC_IDENTITY_URL: `http://identity.localhost:${stack.front}`,
      PUBLIC_AGENTS_URL: `http://agents.localhost:${stack.front}`,
    }),
  });
  const both = async (request: string | string[]): Promise<[RawResult, RawResult]> =>
    Promise.all([rawExchange(direct.port, request, { timeoutMs: 8000 }), rawExchange(stack.front, request, { timeoutMs: 8000 })]);

  await t.test('the byte-level lies arrive unchanged (the same bytes as a direct connection, Date aside)', async (t) => {
    const cases: [string, string | string[]][] = [
      ['/truncate: Content-Length 2×at, at bytes, clean close', closing('/truncate?at=10', chaosHost)],
      ['/bytes undershoot: the surplus bleeds into the next keep-alive response', [get('/bytes?mode=content-length-undershoot&n=101', { Host: chaosHost }), closing('/slow?ms=0', chaosHost)]],
      ['/header-flood?n=100', closing('/header-flood?n=100', chaosHost)],
      ['/status/100 (a 1xx with nothing after it)', closing('/status/100', chaosHost)],
      ['/status/204', closing('/status/204', chaosHost)],
      ['/status/304', closing('/status/304', chaosHost)],
      ['/status/599 (an unnamed status)', closing('/status/599', chaosHost)],
      ['/chunked?mode=cl-and-te (Content-Length and Transfer-Encoding both)', closing('/chunked?mode=cl-and-te', chaosHost)],
      ['/chunked?mode=bad-size', closing('/chunked?mode=bad-size', chaosHost)],
      ['/wrong-content-type', closing('/wrong-content-type', chaosHost)],
      ['/garbage (not HTTP at all)', closing('/garbage?n=300&seed=7', chaosHost)],
      ...['lf-only', 'no-reason', 'empty-reason', 'http10', 'four-digit', 'lowercase'].map(
        (mode): [string, string] => [`/status-line?mode=${mode} (an odd status line)`, closing(`/status-line?mode=${mode}`, chaosHost)],
      ),
      ...['content-length', 'content-type', 'set-cookie-folded'].map(
        (mode): [string, string] => [`/duplicate-headers?mode=${mode}`, closing(`/duplicate-headers?mode=${mode}`, chaosHost)],
      ),
      ['/huge-header?size=65536', closing('/huge-header?size=65536', chaosHost)],
    ];
    for (const [name, request] of cases) {
      const [viaDirect, viaFront] = await both(request);
      t.ok(viaFront.data.length > 0, `${name}: bytes arrived through the proxy`);
      t.equal(withoutDate(viaFront.data), withoutDate(viaDirect.data), name);
      t.equal(viaFront.end, viaDirect.end, `${name}: the connection ends the same way (${viaDirect.end})`);
    }
    const [resetDirect, resetFront] = await both(closing('/reset?phase=after-head', chaosHost));
    t.equal(withoutDate(resetFront.data), withoutDate(resetDirect.data), '/reset after-head: the same head');
    // A known limit of HAProxy 2.6 in mode tcp, documented in docs/front-door.md:
    // the replica's RST reaches the client as a FIN after the same bytes.
    t.equal(resetDirect.end, 'reset', 'direct: the reset is a reset');
    t.equal(resetFront.end, 'fin', 'through HAProxy 2.6: the same bytes, then a FIN (documented)');
  });

  await t.test('/drip through the proxy: chunks are not merged, the schedule is kept', async (t) => {
    const res = await rawExchange(stack.front, closing('/drip?bytes=6&chunk=1&interval=150', chaosHost), { timeoutMs: 8000 });
    const head = parseHead(res.data);
    t.equal(head.rest.toString(), '******');
    const bodyArrivals = res.arrivals.filter((a) => a.at > 100);
    // Six chunks 150 ms apart; a loaded client may read two at once, a proxy that buffers would deliver one lump.
    t.ok(bodyArrivals.length >= 3, `separate arrivals after the head (${res.arrivals.map((a) => `${Math.round(a.at)}ms:${a.bytes}`).join(' ')})`);
    t.ok(res.elapsedMs >= 5 * 150 * 0.8, `the drip took its time (${Math.round(res.elapsedMs)} ms)`);
  });

  await t.test('hosts route by name, with or without the port, in any case; an unknown Host gets 421', async (t) => {
    const catalogHost = async (host: string): Promise<unknown> => {
      const res = await rawExchange(stack.front, get('/', { Host: host, Accept: 'application/json', Connection: 'close' }), { timeoutMs: 5000 });
      const head = parseHead(res.data);
      t.equal(head.status, 200, `${host}: 200`);
      return (JSON.parse(head.rest.toString()) as { host: unknown }).host;
    };
    for (const [name, service] of [['chaos.localhost', 'chaos'], ['control.localhost', 'control'], ['bots.localhost', 'bots']] as const) {
      for (const host of [name, `${name}:${stack.front}`, name.toUpperCase()]) t.equal(await catalogHost(host), service, `Host: ${host} reaches ${service}`);
    }
    for (const host of ['localhost', `localhost:${stack.front}`]) {
      const res = await rawExchange(stack.front, get('/', { Host: host, Accept: 'application/json', Connection: 'close' }));
      const head = parseHead(res.data);
      t.equal(head.status, 200, `the hub (${host}) answers`);
      const hub = JSON.parse(head.rest.toString()) as { hosts: { host: string; url: string; endpoint_count: number }[] };
      t.same(hub.hosts.map((h) => [h.host, h.url]), [['chaos', stack.urls.chaos], ['control', stack.urls.control], ['bots', stack.urls.bots]], 'the hub lists all three hosts');
      t.ok(hub.hosts.every((h) => h.endpoint_count > 10), 'each with its endpoints');
    }
    const unknown = await rawExchange(stack.front, get('/truncate', { Host: 'elsewhere.example', Connection: 'close' }));
    const head = parseHead(unknown.data);
    t.equal(head.status, 421);
    t.match(JSON.parse(head.rest.toString()), { error: 'misdirected_request', reason: /elsewhere\.example/ });
    const noHost = await rawExchange(stack.front, 'GET / HTTP/1.0\r\n\r\n');
    t.equal(parseHead(noHost.data).status, 421, 'no Host at all: 421');
    const switched = await rawExchange(stack.front, [get('/slow?ms=0', { Host: chaosHost }), closing('/slow?ms=0', 'control.localhost')], { timeoutMs: 5000 });
    t.same(
      switched.data.toString('latin1').match(/^HTTP\/1\.1 \d{3}/gm),
      ['HTTP/1.1 200', 'HTTP/1.1 421'],
      'a connection routed to chaos answers 421 to a later request for another host',
    );
  });

  await t.test('a replica SIGKILLed under load: only its in-flight requests fail; it is restarted and rejoins', async (t) => {
    const [victim] = stack.replicas('chaos');
    t.ok(victim, 'a chaos replica runs');
    if (!victim) return;
    let killedAt = Infinity;
    const outcomes: { startedAt: number; ok: boolean }[] = [];
    const stopAt = Date.now() + 4000;
    const worker = async (): Promise<void> => {
      while (Date.now() < stopAt) {
        const startedAt = Date.now();
        const res = await rawExchange(stack.front, closing('/slow?ms=150', chaosHost), { timeoutMs: 5000 }).catch(() => undefined);
        outcomes.push({ startedAt, ok: res !== undefined && res.data.length > 0 && completeByLength(res.data) && parseHead(res.data).status === 200 });
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, worker));
    await sleep(1000);
    process.kill(victim.pid, 'SIGKILL');
    killedAt = Date.now();
    await load;
    const failed = outcomes.filter((o) => !o.ok);
    // A killed process takes a moment to be gone (its sockets refuse from then on): 500 ms of margin.
    const after = outcomes.filter((o) => o.startedAt > killedAt + 500);
    t.ok(outcomes.length > 30, `load ran (${outcomes.length} requests)`);
    t.ok(failed.length <= 6, `at most the in-flight requests failed (${failed.length})`);
    t.ok(failed.every((o) => o.startedAt <= killedAt + 500), `none that started after the kill failed (${failed.map((o) => o.startedAt - killedAt).join(', ')} ms from the kill)`);
    t.ok(after.length > 10 && after.every((o) => o.ok), `requests after the kill went to the survivor (${after.length})`);
    const deadline = Date.now() + 15_000;
    while (!/chaos\.\d restarted and ready/.test(stack.supervisor.stderr()) && Date.now() < deadline) await sleep(100);
    t.match(stack.supervisor.stderr(), /chaos\.\d exited unexpectedly \(SIGKILL\); restarting in \d+ ms/, 'the supervisor logs the death');
    t.match(stack.supervisor.stderr(), /chaos\.\d restarted and ready/, 'and the restart');
    const back = stack.replicas('chaos').find((r) => r.port === victim.port);
    t.ok(back && back.pid !== victim.pid, 'a new process on the same private port');
    let status: Record<string, string> = {};
    while (Date.now() < deadline) {
      status = await stack.serverStatus('be_chaos');
      if (Object.values(status).every((s) => s === 'UP')) break;
      await sleep(200);
    }
    t.same(Object.values(status), ['UP', 'UP'], 'HAProxy has both chaos replicas up again');
  });

  await t.test('SIGTERM drains a replica: its in-flight streams finish, new requests go elsewhere', async (t) => {
    const drips = Array.from({ length: 2 }, () => rawExchange(stack.front, closing('/drip?bytes=8&chunk=1&interval=150', chaosHost), { timeoutMs: 8000 }));
    await sleep(300);
    const [replica] = stack.replicas('chaos');
    if (!replica) return t.fail('no chaos replica');
    process.kill(replica.pid, 'SIGTERM');
    const during = await Promise.all(
      Array.from({ length: 6 }, () => rawExchange(stack.front, closing('/slow?ms=0', chaosHost), { timeoutMs: 5000 })),
    );
    t.same(during.map((r) => parseHead(r.data).status), [200, 200, 200, 200, 200, 200], 'new requests are served while it drains');
    for (const res of await Promise.all(drips)) t.equal(parseHead(res.data).rest.toString(), '********', 'a stream in flight finished whole');
    const deadline = Date.now() + 8000;
    while (alive(replica.pid) && Date.now() < deadline) await sleep(50);
    t.notOk(alive(replica.pid), 'the drained replica exited');
  });
});
