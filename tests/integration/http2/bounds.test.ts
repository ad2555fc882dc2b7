// The HTTP/2 session's timers on a real socket: an idle connection (no
// stream) gets GOAWAY NO_ERROR `idle` after the connection's idle time, and a
// connection ends at MAX_RESPONSE_MS with GOAWAY NO_ERROR even while a stream
// is held open (the /bytes overshoot promises bytes that never come). The
// reader's bounds on bytes are tests/unit/http2-reader.test.ts. docs/http2.md.
import t from 'tap';
import { ERROR } from '../../../services/chaos/http2/frames.js';
import { FRAME, goawayOf, ofType, RawH2 } from '../../helpers/h2-raw.js';
import { startChaos, testConfig } from '../../helpers/servers.js';

t.test('idle: GOAWAY NO_ERROR `idle` after the idle time, then the close', async (t) => {
  const { port } = await startChaos(t, { idleTimeoutMs: 1500 });
  const client = await RawH2.connect(port);
  t.teardown(() => client.destroy());
  const started = Date.now();
  await client.until((frames) => frames.some((f) => f.type === FRAME.GOAWAY), 10_000);
  const [goaway] = ofType(client.frames, FRAME.GOAWAY);
  t.same(goaway && goawayOf(goaway), { last: 0, code: ERROR.NO_ERROR, debug: 'idle' });
  t.ok(Date.now() - started >= 1400, 'not before the idle time');
  await client.until(() => false, 5000);
  t.ok(client.ended, 'the connection closes');
});

t.test('MAX_RESPONSE_MS: the connection ends even while a stream is held', async (t) => {
  const { port } = await startChaos(t, { config: testConfig({ MAX_RESPONSE_MS: '1500' }), idleTimeoutMs: 30_000 });
  const client = await RawH2.connect(port);
  t.teardown(() => client.destroy());
  client.request('/bytes?n=10&mode=content-length-overshoot');
  const started = Date.now();
  await client.until((frames) => frames.some((f) => f.type === FRAME.GOAWAY), 10_000);
  const [goaway] = ofType(client.frames, FRAME.GOAWAY);
  t.same(goaway && goawayOf(goaway), { last: 1, code: ERROR.NO_ERROR, debug: 'connection lifetime reached' });
  t.ok(Date.now() - started >= 1300, 'at the cap, not before');
  t.equal(ofType(client.frames, FRAME.HEADERS).length, 1, 'the held response had begun');
});
