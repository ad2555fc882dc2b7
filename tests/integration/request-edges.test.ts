// Edges every host treats alike: a fragment in the target is dropped (a client
// must not send one), and a connection pipelined past its request cap ends
// cleanly after the last answer, never with node:http's 503.
import t, { type Test } from 'tap';
import { rawExchange } from '../helpers/raw.js';
import { parseExchanges } from '../helpers/final-response.js';
import { startChaos, startHttp } from '../helpers/servers.js';

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
