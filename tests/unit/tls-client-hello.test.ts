// The ClientHello reader of the TLS listener (services/chaos/tls/client-hello.ts):
// real hellos from Node's TLS client, cut at every byte and split into
// records; its bounds; and random input never throws.
import { duplexPair } from 'node:stream';
import tls from 'node:tls';
import t from 'tap';
import { MAX_HELLO_BYTES, readClientHello } from '../../services/chaos/tls/client-hello.js';
import { seededBytes } from '../../shared/primitives/seed.js';

/** The first flight a Node TLS client writes for `servername` (undefined: no SNI). */
function helloOf(servername: string | undefined): Promise<Buffer> {
  return new Promise((resolve) => {
    const [ours, theirs] = duplexPair();
    ours.once('data', (chunk: Buffer) => {
      resolve(chunk);
      client.destroy();
    });
    const client = tls.connect({ socket: theirs, rejectUnauthorized: false, ...(servername === undefined ? {} : { servername }) });
    client.on('error', () => undefined);
  });
}

t.test('reads the server name of a real hello, whole or cut anywhere', async (t) => {
  const hello = await helloOf('expired.tls.localhost');
  t.same(readClientHello(hello), { state: 'hello', servername: 'expired.tls.localhost' });
  let more = 0;
  for (let cut = 0; cut < hello.length; cut++) if (readClientHello(hello.subarray(0, cut)).state === 'more') more++;
  t.equal(more, hello.length, 'every prefix asks for more');
  // The same hello split into two records.
  const body = hello.subarray(5);
  const half = Math.floor(body.length / 2);
  const record = (part: Buffer): Buffer => Buffer.concat([Buffer.from([0x16, 0x03, 0x01, part.length >> 8, part.length & 0xff]), part]);
  t.same(readClientHello(Buffer.concat([record(body.subarray(0, half)), record(body.subarray(half))])), { state: 'hello', servername: 'expired.tls.localhost' });
});

t.test('a hello without SNI has no server name', async (t) => {
  t.same(readClientHello(await helloOf(undefined)), { state: 'hello', servername: undefined });
});

t.test('refuses what is not a hello, and hellos over the bound', async (t) => {
  t.equal(readClientHello(Buffer.from('GET / HTTP/1.1\r\n')).state, 'refused');
  t.equal(readClientHello(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00])).state, 'refused', 'a ServerHello');
  const huge = Buffer.from([0x16, 0x03, 0x01, 0x40, 0x00, 0x01, 0x01, 0x00, 0x00]);
  t.equal(readClientHello(huge).state, 'refused', `a hello claiming ${0x010000} bytes (bound ${MAX_HELLO_BYTES})`);
  t.equal(readClientHello(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x00])).state, 'refused', 'an empty record');
});

t.test('random input never throws', async (t) => {
  let refused = 0;
  for (let i = 0; i < 5000; i++) {
    const bytes = seededBytes(`hello-${i}`, 1 + (i % 300));
    // Half of them look like a handshake record, to get past the first checks.
    if (i % 2 === 0 && bytes.length >= 3) bytes.set([0x16, 0x03, 0x01], 0);
    const read = readClientHello(bytes);
    if (read.state === 'refused') refused++;
  }
  t.ok(refused > 2000, `${refused} of 5000 refused, none threw`);
});
