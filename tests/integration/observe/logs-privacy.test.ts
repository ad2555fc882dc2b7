// Logs never carry a query string, a header value, a body or the client's
// address (DESIGN §10): a run at debug level that sent secrets in all four
// places logs one line per response, and none of the secrets.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { freePort, spawnNode, waitForPort } from '../../helpers/process.js';
import { parseHead, rawExchange } from '../../helpers/raw.js';
import { startStack } from '../../helpers/stack.js';

const SECRETS = ['query-secret-3f9a', 'authorization-secret-77c1', 'body-secret-0b2e', 'cookie-secret-9d41'];

for (const [service, variable, path] of [
  ['chaos', 'CHAOS_PORT', '/anything'],
  ['control', 'CONTROL_PORT', '/anything'],
  ['bots', 'BOTS_PORT', '/robots.txt'],
] as const) {
  t.test(`${service}: debug logs name the response, never the secrets`, async (t) => {
    const port = await freePort();
    const proc = spawnNode(`services/${service}/main.js`, { [variable]: String(port), LOG_LEVEL: 'debug', RATE_LIMIT_GENERAL: '1000' });
    t.teardown(() => proc.child.kill('SIGKILL'));
    await waitForPort(port, 60_000);
    const body = `{"password":"${SECRETS[2]}"}`;
    const request =
      `POST ${path}?token=${SECRETS[0]} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${SECRETS[1]}\r\n` +
      `Cookie: session=${SECRETS[3]}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    const get = `GET ${path}?token=${SECRETS[0]} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${SECRETS[1]}\r\nConnection: close\r\n\r\n`;
    for (const r of [request, get]) {
      const res = await rawExchange(port, r);
      t.ok(parseHead(res.data).status > 0, 'answered');
    }
    await sleep(300);
    const logs = proc.stdout() + proc.stderr();
    const lines = logs.split('\n').filter((l) => l.includes('"msg":"response"'));
    t.ok(lines.length >= 2, `one debug line per response (${lines.length})`);
    t.match(lines.at(-1) ?? '', /"status":\d+/, 'with its status');
    for (const secret of SECRETS) t.notMatch(logs, secret, `no ${secret.split('-')[0]} secret in the logs`);
    t.notMatch(logs, /127\.0\.0\.1:\d+\/|"client|remoteAddress/, 'no client address');
  });
}

// The front door logs at the edge too: at debug level one line per connection
// and per HTTP request (tests/integration/front-door/proxy.test.ts checks the
// format), and none names the client's address or the query.
t.test('the full stack at debug level: HAProxy logs every request, never the client address or the secrets', async (t) => {
  const stack = await startStack(t, { LOG_LEVEL: 'debug', REPLICAS: '1', RATE_LIMIT_GENERAL: '0' });
  const client = '127.0.0.9';
  for (const host of ['chaos.localhost', 'control.localhost', 'bots.localhost', 'nobody.localhost']) {
    const get = `GET /anything?token=${SECRETS[0]} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${SECRETS[1]}\r\nX-Forwarded-For: ${client}\r\nConnection: close\r\n\r\n`;
    const res = await rawExchange(stack.front, get, { localAddress: client });
    t.ok(parseHead(res.data).status > 0, `${host} answered`);
  }
  const edge = (): string[] => stack.supervisor.stdout().split('\n').filter((l) => l.startsWith('haproxy') && l.includes('fe_edge '));
  const deadline = Date.now() + 5_000;
  while (edge().length < 4 && Date.now() < deadline) await sleep(100);
  const lines = edge();
  t.equal(lines.length, 4, `one line per request:\n${lines.join('\n')}`);
  t.ok(lines.some((l) => / be_chaos\/chaos1 .* - -$/.test(l)), 'the chaos byte stream: backend, timings, no HTTP fields');
  t.ok(lines.some((l) => / be_control\/control1 .* 200 \/anything$/.test(l)), 'an HTTP request: status and path without its query');
  t.ok(lines.some((l) => / be_misdirected\/<NOSRV> .* 421 \/anything$/.test(l)), 'the misdirected one');
  const logs = stack.supervisor.stdout() + stack.supervisor.stderr();
  for (const secret of SECRETS.slice(0, 2)) t.notMatch(logs, secret, `no ${secret.split('-')[0]} secret in any log`);
  t.notMatch(logs, client, 'no client address in any log');
});
