// The ordinary chaos endpoints over HTTP/2 (issue 28): a walk over every one
// (its catalog example, through Node's http2.connect) answers its lie (the
// lowercase x-chaos-* fields), or a real error naming the transport (501 for
// a wire-only lie, 421 for a WebSocket), or, for a lie that is a reset, a
// reset stream; never a hang, never a 5xx that is not one of those. Then a
// representative set with curl --http2-prior-knowledge, and a head larger
// than a frame as HEADERS and CONTINUATION on the raw socket. docs/http2.md.
import { execFile } from 'node:child_process';
import t from 'tap';
import { h2Get, type H2Outcome } from '../../../scripts/scorecard/h2-node.js';
import { serviceRegistries } from '../../../services/registries.js';
import { exampleOf } from '../../../shared/catalog/catalog.js';
import { FLAG } from '../../../services/chaos/http2/frames.js';
import { FRAME, RawH2 } from '../../helpers/h2-raw.js';
import { startChaos, testConfig } from '../../helpers/servers.js';

const MAX_RESPONSE_MS = 3000;
const config = testConfig({ MAX_RESPONSE_MS: String(MAX_RESPONSE_MS), RATE_LIMIT_GENERAL: '0', RATE_LIMIT_INFINITE: '0' });
const { port } = await startChaos(t, { config, idleTimeoutMs: 10_000 });
const base = `http://127.0.0.1:${port}`;

/** One request of the walk through Node's http2.connect (the scorecard's h2Get): a stream still open at MAX_RESPONSE_MS + 5 s is a hang. */
function request(method: string, target: string, body: { type: string; text: string } | undefined): Promise<H2Outcome> {
  return h2Get(base, target, {
    method,
    ...(body ? { headers: { 'content-type': body.type }, body: Buffer.from(body.text, 'latin1') } : {}),
    ms: MAX_RESPONSE_MS + 5000,
    settleMs: 0,
  });
}

t.test('every chaos endpoint over HTTP/2: its lie, a real 501/421, or its reset; never a hang', async (t) => {
  const endpoints = serviceRegistries().chaos.endpoints.filter((e) => !e.path.startsWith('/h2/'));
  const outcomes: [string, H2Outcome][] = [];
  for (let i = 0; i < endpoints.length; i += 8) {
    outcomes.push(...await Promise.all(endpoints.slice(i, i + 8).map(async (e): Promise<[string, H2Outcome]> => {
      const ex = exampleOf(e, config);
      return [e.path, await request(ex.method, ex.target, ex.body)];
    })));
  }
  const served = new Set(endpoints.filter((e) => e.transports?.protocols?.includes('h2')).map((e) => e.path));
  const resets = new Set(endpoints.filter((e) => e.cuts === 'reset').map((e) => e.path));
  for (const [path, out] of outcomes) {
    const chaos = Object.keys(out.headers).filter((name) => name.startsWith('x-chaos-')).length;
    t.notOk(out.timedOut, `${path}: ended within MAX_RESPONSE_MS + 5 s (${Math.round(out.ms)} ms; status ${out.status ?? 'none'}, ${out.ended ? 'END_STREAM received' : 'no END_STREAM'}, ${out.body.length} body bytes)`);
    if (!served.has(path)) {
      t.ok((out.status === 501 || out.status === 421) && chaos === 0, `${path}: a real ${out.status} without x-chaos-*`);
      t.match(out.body.toString('latin1'), /HTTP\/2/, `${path}: the reason names HTTP/2`);
    } else if (out.status === undefined) {
      t.ok(resets.has(path) && out.rstCode !== 0, `${path}: no head only where the lie is a reset (rst ${out.rstCode})`);
    } else {
      t.ok(chaos > 0, `${path}: ${out.status} with x-chaos-*`);
    }
  }
  t.equal(outcomes.length, endpoints.length, 'every endpoint walked');
});

function curl(args: readonly string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '-i', '--http2-prior-knowledge', ...args], { timeout: 20_000 }, (error, stdout) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, out: stdout });
    });
  });
}

t.test('a representative set with curl --http2-prior-knowledge: the HTTP-level lie survives', async (t) => {
  const dup = await curl([`${base}/duplicate-headers`]);
  t.match(dup.out, /^HTTP\/2 200/, '/duplicate-headers over HTTP/2');
  t.match(dup.out, /x-chaos-category: headers/);
  const etag = await curl([`${base}/etag`]);
  t.match(etag.out, /^HTTP\/2 200[\s\S]*etag: /m, '/etag: its ETag');
  const chain = await curl([`${base}/redirect-chain`]);
  t.match(chain.out, /^HTTP\/2 302[\s\S]*location: /m, '/redirect-chain: 302 and location');
  const json = await curl([`${base}/json`]);
  t.match(json.out, /^HTTP\/2 200[\s\S]*x-chaos-/m, '/json');
  const drip = await curl([`${base}/drip?bytes=300&interval=100`]);
  t.equal(drip.code, 0);
  t.match(drip.out, /x-chaos-category: latency/, '/drip over HTTP/2');
  const gzip = await curl(['--compressed', `${base}/compression`]);
  t.match(gzip.out, /content-encoding: /, '/compression: its content-encoding');
  const chunked = await curl([`${base}/chunked`]);
  t.match(chunked.out, /^HTTP\/2 501/, '/chunked: the real 501');
  t.match(chunked.out, /chunked transfer coding/, 'naming why');
  t.notOk(/x-chaos-/.test(chunked.out), 'no x-chaos-* on it');
});

t.test('a head larger than the client\'s frame size: HEADERS then CONTINUATION, not an oversize frame', async (t) => {
  const client = await RawH2.connect(port);
  t.teardown(() => client.destroy());
  client.request('/huge-header?size=30000');
  await client.until((f) => f.some((x) => x.type === FRAME.CONTINUATION && (x.flags & FLAG.END_HEADERS) !== 0));
  const block = client.frames.filter((f) => f.type === FRAME.HEADERS || f.type === FRAME.CONTINUATION);
  t.equal(block[0]?.type, FRAME.HEADERS);
  t.equal(block[0]!.flags & FLAG.END_HEADERS, 0, 'HEADERS without END_HEADERS');
  t.ok(block.every((f) => f.payload.length <= 16_384), 'each frame within 16,384 bytes');
});
