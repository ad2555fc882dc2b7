// SPEC §4.1 "Latency and delivery" and §4.2 /bytes, on real sockets: every
// statement about /truncate, /partial-stream and /bytes, and their
// well-formed twins on the control host (/slow and /drip: latency.test.ts).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { seededBytes } from '../../../shared/primitives/seed.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const run = promisify(execFile);
/** Found by search: seededBytes('sig-100', 1) is 0x89, the PNG signature's first byte. */
const SEED_STARTING_0X89 = 'sig-100';

t.test('chaos host', async (t) => {
  const { port } = await startChaos(t);
  const fetchRaw = (path: string, timeoutMs = 5000) => rawExchange(port, get(path), { until: completeByLength, timeoutMs });

  t.test('/truncate: Content-Length claims 2×at, FIN after at bytes of 0123456789', async (t) => {
    for (const at of [1, 512, 1000, 100_000]) {
      const r = await rawExchange(port, get(`/truncate?at=${at}`));
      const head = parseHead(r.data);
      t.equal(r.end, 'fin', `at=${at}: a clean close, not a reset`);
      t.equal(head.header('content-type'), 'text/plain');
      t.equal(head.header('content-length'), String(2 * at));
      t.equal(head.rest.length, at, `exactly ${at} body bytes`);
      t.equal(head.rest.toString('latin1'), '0123456789'.repeat(Math.ceil(at / 10)).slice(0, at));
      t.same(
        [head.header('x-chaos-truncated-at'), head.header('x-chaos-promised-bytes'), head.header('x-chaos-actual-bytes')],
        [String(at), String(2 * at), String(at)],
      );
    }
    const def = parseHead((await rawExchange(port, get('/truncate'))).data);
    t.equal(def.header('content-length'), '1024', 'default at=512');
    const max = parseHead((await rawExchange(port, get('/truncate?at=5000000'))).data);
    t.equal(max.header('x-chaos-clamped'), 'at=1000000');
  });

  t.test('curl reports the transfer cut short', async (t) => {
    const result = await run('curl', ['-sS', '-o', '/dev/null', `http://127.0.0.1:${port}/truncate`]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    t.equal(result.code, 18, 'curl exit 18: partial file');
    t.match(result.stderr, /transfer closed with 512 bytes remaining to read/);
  });

  t.test('/partial-stream: an opening JSON fragment, no Content-Length, clean close', async (t) => {
    for (const bytes of [1, 2, 128, 1000, 16384]) {
      const r = await rawExchange(port, get(`/partial-stream?bytes=${bytes}`));
      const head = parseHead(r.data);
      t.equal(r.end, 'fin', 'no network error: FIN');
      t.equal(head.header('content-type'), 'application/json');
      t.equal(head.header('content-length'), undefined, 'no Content-Length');
      t.equal(head.header('transfer-encoding'), undefined, 'no chunking: close-delimited');
      t.equal(head.header('connection'), 'close');
      t.equal(head.rest.length, bytes);
      t.equal(head.rest[0], 0x7b, 'opens an object');
      t.throws(() => JSON.parse(head.rest.toString()), `bytes=${bytes}: fails JSON parsing`);
    }
  });

  t.test('/bytes content-length-overshoot: claims 2n, sends n, then holds', async (t) => {
    const r = await rawExchange(port, get('/bytes?n=100&seed=abc'), { timeoutMs: 400 });
    const head = parseHead(r.data);
    t.equal(r.end, 'timeout', 'the connection stays open: the client waits for the rest');
    t.equal(head.header('content-length'), '200');
    t.equal(head.header('content-type'), 'application/octet-stream');
    t.same(head.rest, seededBytes('abc', 100), 'the seeded bytes');
    t.equal(head.header('x-chaos-bytes-mode'), 'content-length-overshoot');
  });

  t.test('/bytes content-length-undershoot: the rest bleeds into the next response', async (t) => {
    const n = 11;
    const two = get('/bytes?mode=content-length-undershoot&n=11') + get('/slow?ms=0');
    const r = await rawExchange(port, two, { until: (d) => d.includes('"delayed_ms":0') });
    const first = parseHead(r.data);
    t.equal(first.header('content-length'), '5', 'claims floor(n/2)');
    const bytes = seededBytes('42', n);
    t.same(first.rest.subarray(0, n), bytes, 'all n bytes follow the head');
    t.equal(first.rest.subarray(n, n + 9).toString('latin1'), 'HTTP/1.1 ', 'then the next response, right after the extra bytes');
    const framed = first.rest.subarray(5);
    t.not(framed.subarray(0, 9).toString('latin1'), 'HTTP/1.1 ', 'a client trusting Content-Length reads the bleed as the next status line');
  });

  t.test('/bytes wrong-content-type: image/png label, random bytes, no PNG signature', async (t) => {
    for (let i = 0; i < 40; i++) {
      const seed = `png-${i}`;
      const head = parseHead((await fetchRaw(`/bytes?mode=wrong-content-type&n=64&seed=${seed}`)).data);
      t.equal(head.header('content-type'), 'image/png');
      t.equal(head.rest.length, 64);
      t.not(head.rest[0], 0x89, 'never the PNG signature');
      t.same(head.rest.subarray(1), seededBytes(seed, 64).subarray(1), 'seeded bytes');
    }
  });

  t.test('/bytes wrong-content-type flips a seeded 0x89 without touching the seed\'s bytes elsewhere', async (t) => {
    const seed = SEED_STARTING_0X89;
    t.equal(seededBytes(seed, 1)[0], 0x89, 'this seed starts with the PNG signature byte');
    const png = parseHead((await fetchRaw(`/bytes?mode=wrong-content-type&n=16&seed=${seed}`)).data);
    t.equal(png.rest[0], 0x88, 'flipped in the PNG mode');
    const plain = parseHead((await rawExchange(port, get(`/bytes?mode=content-length-undershoot&n=16&seed=${seed}`), { timeoutMs: 300 })).data);
    t.same(plain.rest.subarray(0, 16), seededBytes(seed, 16), 'the same seed in another mode: the seeded bytes, 0x89 first');
  });

  t.test('/bytes: the same seed always yields the same bytes; defaults n=256 seed 42', async (t) => {
    const a = parseHead((await fetchRaw('/bytes?mode=wrong-content-type&seed=repeat')).data).rest;
    const b = parseHead((await fetchRaw('/bytes?mode=wrong-content-type&seed=repeat')).data).rest;
    t.same(a, b);
    t.equal(a.length, 256);
    const def = parseHead((await rawExchange(port, get('/bytes'), { timeoutMs: 300 })).data);
    t.same(def.rest, seededBytes('42', 256));
    t.equal(def.header('x-chaos-bytes-seed'), '42');
    const bad = parseHead((await fetchRaw('/bytes?mode=nope')).data);
    t.equal(bad.status, 400);
    t.match(JSON.parse(bad.rest.toString()), { param: 'mode', accepted: ['content-length-overshoot', 'content-length-undershoot', 'wrong-content-type'] });
    const clamped = parseHead((await fetchRaw('/bytes?mode=wrong-content-type&n=99999')).data);
    t.equal(clamped.rest.length, 4096);
    t.equal(clamped.header('x-chaos-clamped'), 'n=4096');
  });

  t.test('a seed with CR/LF cannot inject header lines', async (t) => {
    const head = parseHead((await fetchRaw('/bytes?mode=wrong-content-type&seed=a%0D%0AX-Evil:%201')).data);
    t.equal(head.header('x-evil'), undefined);
    t.equal(head.header('x-chaos-bytes-seed'), 'a%0D%0AX-Evil%3A%201');
  });
});

t.test('control host: the same resources, well-formed', async (t) => {
  const { port } = await startHttp(t, 'control');
  const base = `http://127.0.0.1:${port}`;

  t.test('/truncate sends at bytes and says so', async (t) => {
    const res = await fetch(`${base}/truncate?at=25`);
    t.equal(res.headers.get('content-length'), '25');
    t.equal(await res.text(), '0123456789012345678901234');
  });

  t.test('/partial-stream is complete JSON that starts with the chaos fragment', async (t) => {
    for (const bytes of [1, 128, 16384]) {
      const res = await fetch(`${base}/partial-stream?bytes=${bytes}`);
      const text = await res.text();
      t.equal(res.headers.get('content-length'), String(Buffer.byteLength(text)));
      t.doesNotThrow(() => JSON.parse(text));
      t.ok(text.length > bytes);
    }
  });

  t.test('/bytes: n seeded bytes, accurate length, octet-stream, same bytes as the chaos host', async (t) => {
    const res = await fetch(`${base}/bytes?n=300&seed=xyz`);
    t.equal(res.headers.get('content-type'), 'application/octet-stream');
    t.equal(res.headers.get('content-length'), '300');
    t.same(Buffer.from(await res.arrayBuffer()), seededBytes('xyz', 300));
    const def = await fetch(`${base}/bytes`);
    t.same(Buffer.from(await def.arrayBuffer()), seededBytes('42', 256));
    t.equal((await fetch(`${base}/bytes?n=x`)).status, 400);
  });
});
