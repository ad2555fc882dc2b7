// Logs never carry a query string, a header value, a body or the client's
// address (DESIGN §10): a run at debug level that sent secrets in all four
// places logs one line per response, and none of the secrets.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { freePort, spawnNode, waitForPort } from '../helpers/process.js';
import { parseHead, rawExchange } from '../helpers/raw.js';

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
