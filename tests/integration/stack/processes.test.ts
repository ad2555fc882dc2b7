// The services as real processes: graceful shutdown with a response in
// flight, the bound on it, the `make up` supervisor, and bad configuration.
import t from 'tap';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { freePort, refused, spawnNode, waitForPort } from '../../helpers/process.js';

t.test('SIGTERM: stop accepting, finish the in-flight response, exit 0', async (t) => {
  const port = await freePort();
  const svc = spawnNode('services/chaos/main.js', { CHAOS_PORT: String(port) });
  t.teardown(() => svc.child.kill('SIGKILL'));
  await waitForPort(port, 60_000);
  const inFlight = rawExchange(port, get('/slow?ms=800'), { until: completeByLength, timeoutMs: 5000 });
  await new Promise((r) => setTimeout(r, 200));
  svc.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 100));
  t.ok(await refused(port), 'new connections are refused while draining');
  const r = await inFlight;
  const head = parseHead(r.data);
  t.equal(head.status, 200, 'the in-flight response completed');
  t.same(JSON.parse(head.rest.toString()), { endpoint: '/slow', delayed_ms: 800, max_ms: 15000 });
  t.equal(head.header('connection'), 'close', 'and said it was the last on its connection');
  t.same(await svc.exited, { code: 0, signal: null });
});

t.test('the grace is bounded: a response still running is cut, exit 0', async (t) => {
  const port = await freePort();
  const svc = spawnNode('services/chaos/main.js', { CHAOS_PORT: String(port), SHUTDOWN_GRACE_MS: '300' });
  t.teardown(() => svc.child.kill('SIGKILL'));
  await waitForPort(port, 60_000);
  const inFlight = rawExchange(port, get('/slow?ms=10000'), { timeoutMs: 5000 });
  await new Promise((r) => setTimeout(r, 100));
  const start = performance.now();
  svc.child.kill('SIGTERM');
  const r = await inFlight;
  t.not(r.end, 'timeout', 'the connection was closed');
  t.ok(performance.now() - start < 3000, 'within a generous bound of the 300 ms grace');
  t.same(await svc.exited, { code: 0, signal: null });
});

t.test('a service started without the node flags it is tuned for says so once at start-up, naming them', async (t) => {
  for (const [flags, warns] of [[[], true], [undefined, false]] as const) {
    const port = await freePort();
    const svc = spawnNode('services/chaos/main.js', { CHAOS_PORT: String(port), LOG_LEVEL: 'warn' }, flags);
    t.teardown(() => svc.child.kill('SIGKILL'));
    await waitForPort(port, 60_000);
    svc.child.kill('SIGTERM');
    t.same(await svc.exited, { code: 0, signal: null });
    const warnings = svc.stdout().split('\n').filter((line) => line.includes('started without the node flags'));
    if (warns) {
      t.equal(warnings.length, 1, `one warning without the flags:\n${svc.stdout()}`);
      t.match(warnings[0], '--max-semi-space-size=2 --single-threaded-gc', 'it names the missing flags');
    } else t.same(warnings, [], 'none with them');
  }
});

t.test('control and bots stop on SIGTERM with idle keep-alive connections open', async (t) => {
  for (const [name, variable] of [['control', 'CONTROL_PORT'], ['bots', 'BOTS_PORT']] as const) {
    const port = await freePort();
    const svc = spawnNode(`services/${name}/main.js`, { [variable]: String(port) });
    t.teardown(() => svc.child.kill('SIGKILL'));
    await waitForPort(port, 60_000);
    const idle = rawExchange(port, get('/'), { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 100));
    svc.child.kill('SIGTERM');
    t.same(await svc.exited, { code: 0, signal: null }, `${name} exits 0`);
    t.equal((await idle).end, 'fin', `${name}: the idle connection was closed`);
  }
});

t.test('make up: the supervisor starts three processes, prints URLs, stops all on SIGINT', async (t) => {
  const [chaos, control, bots] = [await freePort(), await freePort(), await freePort()];
  const svc = spawnNode('services/main.js', { STACK: 'embedded', CHAOS_PORT: String(chaos), CONTROL_PORT: String(control), BOTS_PORT: String(bots) });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const deadline = Date.now() + 60_000; // three processes start one after another: about 8 s on a busy 2-core machine
  while (!svc.stdout().includes('Ctrl-C stops all three') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const out = svc.stdout();
  t.match(out, `chaos    http://127.0.0.1:${chaos}/`);
  t.match(out, `control  http://127.0.0.1:${control}/`);
  t.match(out, `bots     http://127.0.0.1:${bots}/`);
  t.match(out, `hub      http://localhost:${control}/`, 'the banner names the hub too');
  const hub = await rawExchange(control, get('/', { Host: `localhost:${control}`, Accept: 'application/json' }), { until: completeByLength });
  t.equal(parseHead(hub.data).status, 200, 'and the hub answers there');
  for (const port of [chaos, control, bots]) {
    const head = parseHead((await rawExchange(port, get('/'), { until: completeByLength })).data);
    t.equal(head.status, 200, `catalog on ${port}`);
  }
  const truncated = await rawExchange(chaos, get('/truncate'));
  t.equal(parseHead(truncated.data).rest.length, 512);
  svc.child.kill('SIGINT');
  t.same(await svc.exited, { code: 0, signal: null }, 'the supervisor exits 0');
  for (const port of [chaos, control, bots]) t.ok(await refused(port), `port ${port} is closed`);
});

t.test('a bad configuration stops start-up with a message naming the variable', async (t) => {
  const svc = spawnNode('services/chaos/main.js', { CHAOS_PORT: 'eighty' });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const exit = await svc.exited;
  t.equal(exit.code, 2);
  t.match(svc.stderr(), /configuration error: CHAOS_PORT="eighty" is not valid: expected an integer from 0 to 65535/);
  const sup = spawnNode('services/main.js', { RATE_LIMIT_GENERAL: 'lots' });
  t.teardown(() => sup.child.kill('SIGKILL'));
  t.equal((await sup.exited).code, 2);
  t.match(sup.stderr(), /RATE_LIMIT_GENERAL/);
});

t.test('a port in use is a clear start-up error', async (t) => {
  const port = await freePort();
  const first = spawnNode('services/chaos/main.js', { CHAOS_PORT: String(port) });
  t.teardown(() => first.child.kill('SIGKILL'));
  await waitForPort(port, 60_000);
  const second = spawnNode('services/chaos/main.js', { CHAOS_PORT: String(port) });
  t.teardown(() => second.child.kill('SIGKILL'));
  t.equal((await second.exited).code, 1);
  t.match(second.stderr(), /could not start: .*EADDRINUSE/);
});
