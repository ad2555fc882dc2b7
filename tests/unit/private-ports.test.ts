// The private ports `make up` gives Redis, HAProxy's admin page and the
// replicas (services/supervisor.ts): distinct, free, and below the kernel's
// ephemeral range, where no outgoing connection can take one between the pick
// and the replica's listen (a replica of the test stack once failed so).
import { readFileSync } from 'node:fs';
import net from 'node:net';
import t from 'tap';
import { freeLoopbackPorts, PRIVATE_PORTS_FROM, privatePortRange } from '../../services/supervisor.js';

t.test('the range ends where the kernel starts picking ephemeral ports', async (t) => {
  const [from, below] = privatePortRange();
  t.equal(from, PRIVATE_PORTS_FROM);
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  t.equal(below, low, `below ${low}, the first ephemeral port`);
});

t.test('ports for a stack: distinct, in the private range, free to listen on', async (t) => {
  const [from, below] = privatePortRange();
  const ports = await freeLoopbackPorts(23);
  t.equal(ports.length, 23);
  t.equal(new Set(ports).size, 23, 'distinct');
  t.ok(ports.every((p) => p >= from && p < below), `all in [${from}, ${below}): ${ports.slice(0, 5).join(', ')}, …`);
  for (const port of ports) {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise((resolve) => server.close(resolve));
  }
  t.pass('each one could be listened on after the pick');
});
