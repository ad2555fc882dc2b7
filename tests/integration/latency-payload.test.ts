// SPEC §4.1 "Latency and delivery" and §4.2 /bytes, on real sockets: every
// statement about /slow, /drip, /truncate, /partial-stream and /bytes, and
// their well-formed twins on the control host.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { seededBytes } from '../../shared/primitives/seed.js';
import { completeByLength, get, parseHead, rawExchange } from '../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../helpers/servers.js';

const run = promisify(execFile);
/** Found by search: seededBytes('sig-100', 1) is 0x89, the PNG signature's first byte. */
const SEED_STARTING_0X89 = 'sig-100';

t.test('chaos host', async (t) => {
  const { port } = await startChaos(t);
  const fetchRaw = (path: string, timeoutMs = 5000) => rawExchange(port, get(path), { until: completeByLength, timeoutMs });

  t.test('/slow waits ms, then sends everything at once', async (t) => {
    const r = await fetchRaw('/slow?ms=300');
    const head = parseHead(r.data);
    t.equal(head.status, 200);
    t.equal(head.header('content-type'), 'application/json');
    t.equal(head.header('x-chaos-delayed-ms'), '300');
    t.equal(head.header('x-chaos-category'), 'latency');
    t.same(JSON.parse(head.rest.toString()), { endpoint: '/slow', delayed_ms: 300, max_ms: 15000 });
    const first = r.arrivals[0]!.at;
    t.ok(first >= 290, `nothing before the delay (first byte at ${first.toFixed(0)} ms)`);
    t.ok(first < 2000, 'and not absurdly later');
    t.equal(r.arrivals.length, 1, 'head and body arrive together');
  });

  t.test('/slow defaults to 1000 ms and clamps to 15000', async (t) => {
    const r = await fetchRaw('/slow');
    t.equal(parseHead(r.data).header('x-chaos-delayed-ms'), '1000');
    t.ok(r.arrivals[0]!.at >= 990);
    // Clamping is reported; we don't wait 15 s for it: the client leaves early.
    const clamped = await rawExchange(port, get('/slow?ms=99999'), { timeoutMs: 200 });
    t.equal(clamped.end, 'timeout', 'still waiting after 200 ms');
  });

  t.test('/slow ms=abc is a clear 400, not chaos', async (t) => {
    const head = parseHead((await fetchRaw('/slow?ms=abc')).data);
    t.equal(head.status, 400);
    t.same(head.headerLines.filter(([n]) => /^x-chaos-/i.test(n)), [], 'no X-Chaos-* on a real error');
    t.match(JSON.parse(head.rest.toString()), { endpoint: '/slow', error: 'invalid_parameter', requested: 'abc', param: 'ms' });
  });

  t.test('/drip: headers at once, chunks of `chunk` bytes `interval` ms apart', async (t) => {
    const r = await fetchRaw('/drip?bytes=50&chunk=10&interval=100');
    const head = parseHead(r.data);
    t.equal(head.status, 200);
    t.equal(head.header('content-length'), '50');
    t.equal(head.rest.toString(), '*'.repeat(50));
    t.ok(r.arrivals[0]!.at < 100, 'the head arrives immediately');
    t.equal(r.arrivals.length, 5, 'five separate arrivals (head + first chunk, then four)');
    const bodyArrivals = r.arrivals.slice(1);
    for (const a of bodyArrivals) t.equal(a.bytes, 10, 'each later arrival is one chunk');
    const total = r.arrivals.at(-1)!.at;
    t.ok(total >= 390 && total < 1500, `last chunk ~400 ms after the head (was ${total.toFixed(0)} ms)`);
    t.same([head.header('x-chaos-drip-bytes'), head.header('x-chaos-drip-interval-ms'), head.header('x-chaos-drip-chunk')], ['50', '100', '10']);
  });

  t.test('/drip clamps interval and reports it', async (t) => {
    const head = parseHead((await fetchRaw('/drip?bytes=3&chunk=1&interval=1')).data);
    t.equal(head.header('x-chaos-clamped'), 'interval=10');
    t.equal(head.header('x-chaos-drip-interval-ms'), '10');
  });

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
  const expectControl = (t: Test, res: Response, path: string) => {
    t.equal(res.headers.get('x-chaos-origin'), 'control');
    t.equal(res.headers.get('x-chaos-counterpart'), `http://chaos.test:8080${path}`);
  };

  t.test('/slow answers at once', async (t) => {
    const start = performance.now();
    const res = await fetch(`${base}/slow?ms=5000`);
    t.ok(performance.now() - start < 1000, 'prompt');
    t.same(await res.json(), { endpoint: '/slow', delayed_ms: 0, max_ms: 15000 });
    expectControl(t, res, '/slow?ms=5000');
  });

  t.test('/drip sends every byte at once with an accurate Content-Length', async (t) => {
    const res = await fetch(`${base}/drip?bytes=500&interval=5000`);
    t.equal(res.headers.get('content-length'), '500');
    t.equal(await res.text(), '*'.repeat(500));
  });

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

t.test('/drip fits its schedule into MAX_RESPONSE_MS by raising the chunk, on both hosts', async (t) => {
  const config = testConfig({ MAX_RESPONSE_MS: '1000' });
  const chaos = (await startChaos(t, { config })).port;
  const control = (await startHttp(t, 'control', config)).port;
  // 100 bytes in 10-byte chunks 200 ms apart would take 1800 ms: 6 chunks fit in 1000 ms, so 17 bytes each.
  const started = performance.now();
  const r = await rawExchange(chaos, get('/drip?bytes=100&interval=200&chunk=10'), { until: completeByLength, timeoutMs: 5000 });
  const took = performance.now() - started;
  const head = parseHead(r.data);
  t.equal(head.header('x-chaos-clamped'), 'chunk=17');
  t.equal(head.header('x-chaos-drip-chunk'), '17');
  t.equal(head.rest.length, 100, 'every byte still arrives');
  t.ok(took >= 900 && took < 1600, `ends within the bound: ${Math.round(took)} ms`);
  const twin = parseHead((await rawExchange(control, get('/drip?bytes=100&interval=200&chunk=10'), { until: completeByLength })).data);
  t.equal(twin.header('x-chaos-clamped'), 'chunk=17', 'the twin reports the same');
  // A clamp of the same parameter is reported once, with the applied value.
  const both = parseHead((await rawExchange(chaos, get('/drip?bytes=20&interval=1000&chunk=0'), { until: completeByLength, timeoutMs: 5000 })).data);
  t.equal(both.header('x-chaos-clamped'), 'chunk=10');
  // Within the bound nothing changes.
  const fits = parseHead((await rawExchange(chaos, get('/drip?bytes=10&interval=100&chunk=5'), { until: completeByLength })).data);
  t.equal(fits.header('x-chaos-clamped'), undefined);
});

t.test('the default bound: 5.8 days of /drip becomes two minutes', async (t) => {
  const { port } = await startChaos(t);
  const r = await rawExchange(port, get('/drip?bytes=100000&interval=5000&chunk=1'), { until: (d) => d.includes('\r\n\r\n') });
  const head = parseHead(r.data);
  t.equal(head.header('x-chaos-clamped'), 'chunk=4000');
  t.equal(head.header('x-chaos-drip-chunk'), '4000');
});

t.test('/stall: the head and `after` bytes at once, silence, then a clean close one byte short; the twin sends it all', async (t) => {
  const { port } = await startChaos(t);
  const started = performance.now();
  const r = await rawExchange(port, get('/stall?after=5&ms=400'), { timeoutMs: 3000 });
  const took = performance.now() - started;
  t.equal(r.end, 'fin', 'a clean close');
  const head = parseHead(r.data);
  t.equal(head.status, 200);
  t.equal(head.header('content-length'), '6', 'one byte more than is sent');
  t.equal(head.header('x-chaos-stall-after'), '5');
  t.equal(head.header('x-chaos-stall-ms'), '400');
  t.equal(head.header('x-chaos-promised-bytes'), '6');
  t.equal(head.rest.toString('latin1'), '01234');
  const first = r.arrivals[0]?.at ?? 0;
  t.ok(first < 200, `head and bytes at once (${Math.round(first)} ms)`);
  t.ok(took >= 380 && took < 1500, `the close after the silence (${Math.round(took)} ms)`);
  const curl = await promisify(execFile)('curl', ['-sS', '-o', '/dev/null', `http://127.0.0.1:${port}/stall?after=3&ms=100`]).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  t.equal(curl.code, 18, 'curl: transfer closed with bytes remaining');
  t.match(curl.stderr, /1 bytes remaining/);
  const control = (await startHttp(t, 'control')).port;
  const twin = parseHead((await rawExchange(control, get('/stall?after=5&ms=400'), { until: completeByLength })).data);
  t.equal(twin.header('content-length'), '6');
  t.equal(twin.rest.toString('latin1'), '012345', 'the twin sends every promised byte at once');
  const bounded = parseHead((await rawExchange((await startChaos(t, { config: testConfig({ MAX_RESPONSE_MS: '1000' }) })).port, get('/stall?ms=60000'), { timeoutMs: 3000 })).data);
  t.equal(bounded.header('x-chaos-clamped'), 'ms=1000', 'never longer than MAX_RESPONSE_MS');
});
