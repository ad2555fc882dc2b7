// Edges every host treats alike: a fragment in the target is dropped (a client
// must not send one), and a connection pipelined past its request cap ends
// cleanly after the last answer, never with node:http's 503.
import net from 'node:net';
import t, { type Test } from 'tap';
import { rawExchange } from '../../helpers/raw.js';
import { parseExchanges } from '../../helpers/final-response.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

const hosts = ['chaos', 'control', 'bots'] as const;
const portOf = async (t: Test, host: (typeof hosts)[number]): Promise<number> =>
  host === 'chaos' ? (await startChaos(t)).port : (await startHttp(t, host)).port;
const pathOn = { chaos: '/status/200', control: '/status/200', bots: '/humans.txt' } as const;

for (const host of hosts) {
  t.test(`${host}: a #fragment in the target is dropped`, async (t) => {
    const port = await portOf(t, host);
    const r = await rawExchange(port, `GET ${pathOn[host]}#frag HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
    const [answer] = parseExchanges(r.data) ?? [];
    t.equal(answer?.response.status, 200, 'answered as the path without its fragment');
  });

  t.test(`${host}: 1005 pipelined requests get 1000 answers, the last with Connection: close, then a clean close`, async (t) => {
    const port = await portOf(t, host);
    const one = `GET ${pathOn[host]} HTTP/1.1\r\nHost: a\r\n\r\n`;
    const r = await rawExchange(port, one.repeat(1005), { timeoutMs: 15_000 });
    t.equal(r.end, 'fin', 'the server closed the connection');
    const answers = parseExchanges(r.data) ?? [];
    t.equal(answers.length, 1000);
    t.same([...new Set(answers.map((a) => a.response.status))], [200], 'no 5xx, no other status');
    t.equal(answers.at(-1)?.response.header('connection'), 'close');
    t.equal(answers.filter((a) => a.response.header('connection') === 'close').length, 1);
  });
}

for (const host of hosts) {
  t.test(`${host}: a keep-alive connection's life is bounded (MAX_CONNECTION_MS)`, async (t) => {
    const config = testConfig({ MAX_CONNECTION_MS: '1000' });
    const port = host === 'chaos' ? (await startChaos(t, { config })).port : (await startHttp(t, host, config)).port;
    const socket = net.connect({ port, host: '127.0.0.1' });
    t.teardown(() => socket.destroy());
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const ask = async (): Promise<void> => {
      const before = (data.match(/HTTP\/1\.1 /g) ?? []).length;
      socket.write(`GET ${pathOn[host]} HTTP/1.1\r\nHost: a\r\n\r\n`);
      while ((data.match(/HTTP\/1\.1 /g) ?? []).length === before) await new Promise((r) => setTimeout(r, 10));
    };
    await ask();
    t.notMatch(data, /Connection: close/i, 'young: kept alive');
    await new Promise((r) => setTimeout(r, 1100));
    await ask();
    t.match(data.slice(data.lastIndexOf('HTTP/1.1 ')), /Connection: close/i, 'past its life: the answer says close');
    await closed;
    t.pass('and the connection ends');
  });
}
