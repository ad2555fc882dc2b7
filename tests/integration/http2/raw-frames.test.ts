// The chaos host's HTTP/2 on a real socket, frame by frame (tests/helpers/h2-raw.ts):
// prior knowledge instead of the old 505, an ordinary endpoint's HTTP-level lie
// as HEADERS and DATA, the real 501 for a wire-only lie (421 for a WebSocket), and
// each /h2/* lie's type, flags, stream id, last-stream-id and error codes.
// Issue 28; docs/http2.md.
import t from 'tap';
import { ERROR, FLAG, SETTING } from '../../../services/chaos/http2/frames.js';
import { fieldsOf, FRAME, goawayOf, ofType, RawH2, type RawFrame } from '../../helpers/h2-raw.js';
import { startChaos } from '../../helpers/servers.js';

const { port } = await startChaos(t, { idleTimeoutMs: 2000 });

async function get(path: string, done: (frames: readonly RawFrame[]) => boolean): Promise<RawH2> {
  const client = await RawH2.connect(port);
  t.teardown(() => client.destroy());
  client.request(path);
  await client.until(done);
  return client;
}
const ended = (frames: readonly { type: number; flags: number }[]): boolean =>
  frames.some((f) => (f.type === FRAME.DATA || f.type === FRAME.HEADERS) && (f.flags & FLAG.END_STREAM) !== 0);
const goaway = (frames: readonly { type: number }[]): boolean => frames.some((f) => f.type === FRAME.GOAWAY);
const field = (fields: readonly (readonly [string, string])[], name: string): string | undefined => fields.find(([n]) => n === name)?.[1];

t.test('the preface gets HTTP/2: our SETTINGS (bounds advertised), the ACK, then /status/418 as HEADERS and DATA', async (t) => {
  const client = await get('/status/418', ended);
  const [settings] = ofType(client.frames, FRAME.SETTINGS);
  t.equal(settings?.flags, 0, 'the server preface first');
  const values = new Map<number, number>();
  for (let at = 0; settings && at < settings.payload.length; at += 6) values.set(settings.payload.readUInt16BE(at), settings.payload.readUInt32BE(at + 2));
  t.equal(values.get(SETTING.MAX_CONCURRENT_STREAMS), 8);
  t.equal(values.get(SETTING.HEADER_TABLE_SIZE), 4096);
  t.ok(ofType(client.frames, FRAME.SETTINGS).some((f) => f.flags === FLAG.ACK), 'our SETTINGS ACK');
  const [headers] = ofType(client.frames, FRAME.HEADERS);
  t.equal(headers?.streamId, 1);
  const fields = fieldsOf(headers!);
  t.same(fields[0], [':status', '418']);
  t.equal(field(fields, 'x-chaos-category'), 'status', 'lowercase x-chaos-* from the header helper');
  t.equal(field(fields, 'x-chaos-status'), '418');
  t.notOk(fields.some(([name]) => name === 'connection'), 'no connection field');
  const body = Buffer.concat(ofType(client.frames, FRAME.DATA).map((f) => f.payload)).toString();
  t.match(JSON.parse(body), { status: 418 });
});

t.test('a wire-only lie: the real 501 naming why it has no HTTP/2 form; a WebSocket: the real 421; no x-chaos-*', async (t) => {
  const client = await get('/chunked', ended);
  const fields = fieldsOf(ofType(client.frames, FRAME.HEADERS)[0]!);
  t.same(fields[0], [':status', '501']);
  t.notOk(fields.some(([name]) => name.startsWith('x-chaos-')));
  t.match(Buffer.concat(ofType(client.frames, FRAME.DATA).map((f) => f.payload)).toString(), /\/chunked has no HTTP\/2 form: its lie is HTTP\/1\.1 chunked transfer coding/);
  const ws = await get('/ws/close', ended);
  const wsFields = fieldsOf(ofType(ws.frames, FRAME.HEADERS)[0]!);
  t.same(wsFields[0], [':status', '421']);
  t.notOk(wsFields.some(([name]) => name.startsWith('x-chaos-')));
  t.match(Buffer.concat(ofType(ws.frames, FRAME.DATA).map((f) => f.payload)).toString(), /served over HTTP\/1\.1 or WebSocket.*came over HTTP\/2/);
});

t.test('/h2/rst: HEADERS, `at` bytes of DATA, RST_STREAM with `code`', async (t) => {
  const client = await get('/h2/rst?at=6&code=8', (f) => f.some((x) => x.type === FRAME.RST_STREAM));
  const data = ofType(client.frames, FRAME.DATA);
  t.equal(data.reduce((n, f) => n + f.payload.length, 0), 6);
  const [rst] = ofType(client.frames, FRAME.RST_STREAM);
  t.equal(rst?.streamId, 1);
  t.equal(rst?.payload.readUInt32BE(0), ERROR.CANCEL);
  t.equal(field(fieldsOf(ofType(client.frames, FRAME.HEADERS)[0]!), 'x-chaos-rst-code'), '8');
});

t.test('/h2/goaway: each mode\'s last-stream-id, code and chaos:<mode> debug data', async (t) => {
  const zero = await get('/h2/goaway?mode=zero', goaway);
  t.same(goawayOf(ofType(zero.frames, FRAME.GOAWAY)[0]!), { last: 0, code: 0, debug: 'chaos:zero' });
  t.equal(ofType(zero.frames, FRAME.HEADERS).length, 0, 'before any HEADERS');
  const max = await get('/h2/goaway?mode=max-then-close&code=2', (f) => f.some((x) => x.type === FRAME.DATA));
  await max.until(() => false, 1000);
  t.same(goawayOf(ofType(max.frames, FRAME.GOAWAY)[0]!), { last: 2 ** 31 - 1, code: 2, debug: 'chaos:max-then-close' });
  t.notOk(ended(max.frames), 'the body stops without END_STREAM');
  t.ok(max.ended, 'and the connection closes');
  const inc = await get('/h2/goaway?mode=increasing', ended);
  t.same(ofType(inc.frames, FRAME.GOAWAY).map((f) => goawayOf(f).last), [1, 99], 'the second GOAWAY raises the id');
  const after = await get('/h2/goaway?mode=after-response&code=11', goaway);
  t.ok(ended(after.frames), 'the whole response first');
  t.same(goawayOf(ofType(after.frames, FRAME.GOAWAY)[0]!), { last: 1, code: ERROR.ENHANCE_YOUR_CALM, debug: 'chaos:after-response' });
});

t.test('/h2/settings: the invalid SETTINGS before the response, then a GOAWAY naming it', async (t) => {
  const cases = [['max-frame-invalid', SETTING.MAX_FRAME_SIZE, 1000], ['enable-push-1', SETTING.ENABLE_PUSH, 1], ['initial-window-overflow', SETTING.INITIAL_WINDOW_SIZE, 2 ** 31]] as const;
  for (const [mode, id, value] of cases) {
    const client = await get(`/h2/settings?mode=${mode}`, goaway);
    const lie = ofType(client.frames, FRAME.SETTINGS).find((f) => f.flags === 0 && f.payload.length === 6 && f.payload.readUInt16BE(0) === id);
    t.equal(lie?.payload.readUInt32BE(2), value, `${mode}: the value`);
    t.ok(client.frames.indexOf(lie!) < client.frames.indexOf(ofType(client.frames, FRAME.HEADERS)[0]!), `${mode}: before HEADERS`);
    t.equal(goawayOf(ofType(client.frames, FRAME.GOAWAY)[0]!).debug, `chaos:${mode}`);
  }
});

t.test('/h2/frames: each framing lie as bytes', async (t) => {
  const over = await get('/h2/frames?mode=oversize-data&size=20000', ended);
  t.equal(ofType(over.frames, FRAME.DATA)[0]?.payload.length, 20000, 'a 20,000-byte DATA frame (max 16,384)');
  const after = await get('/h2/frames?mode=data-after-end-stream', (f) => ofType(f, FRAME.DATA).length >= 2);
  const data = ofType(after.frames, FRAME.DATA);
  t.equal(data[0]?.flags, FLAG.END_STREAM);
  t.equal(data[1]?.streamId, 1, 'DATA again on the ended stream');
  const orphan = await get('/h2/frames?mode=continuation-orphan', goaway);
  t.equal(orphan.frames.find((f) => f.type === FRAME.CONTINUATION)?.streamId, 1);
  t.equal(ofType(orphan.frames, FRAME.HEADERS).length, 0);
  t.equal(goawayOf(ofType(orphan.frames, FRAME.GOAWAY)[0]!).debug, 'chaos:continuation-orphan');
  const closed = await get('/h2/frames?mode=headers-on-closed-stream', (f) => ofType(f, FRAME.HEADERS).length >= 2);
  t.equal(ofType(closed.frames, FRAME.HEADERS)[1]?.streamId, 1, 'HEADERS after END_STREAM');
  const pad = await get('/h2/frames?mode=padding-lie', ended);
  const padded = ofType(pad.frames, FRAME.DATA)[0]!;
  t.ok((padded.flags & FLAG.PADDED) !== 0);
  t.ok((padded.payload[0] as number) >= padded.payload.length, 'pad length past the payload');
  const unknown = await get('/h2/frames?mode=unknown-type', ended);
  t.equal(unknown.frames.find((f) => f.type === 0xfa)?.streamId, 1, 'frame type 0xfa');
});

t.test('/h2/headers: each field lie decoded from the block, the HPACK lies as bytes', async (t) => {
  const block = async (mode: string) => {
    const client = await get(`/h2/headers?mode=${mode}`, ended);
    return ofType(client.frames, FRAME.HEADERS)[0]!;
  };
  const fields = async (mode: string) => fieldsOf(await block(mode));
  t.ok((await fields('uppercase')).some(([n]) => n === 'X-Chaos-Uppercase'));
  t.equal(field(await fields('connection-header'), 'connection'), 'keep-alive');
  t.notOk((await fields('no-status')).some(([n]) => n === ':status'));
  t.equal((await fields('duplicate-status')).filter(([n]) => n === ':status').length, 2);
  const after = await fields('pseudo-after-regular');
  t.equal(after.at(-1)?.[0], ':status');
  t.equal(field(await fields('content-length-lie'), 'content-length'), '999');
  t.equal(field(await fields('te-not-trailers'), 'te'), 'gzip');
  for (const mode of ['hpack-bad-index', 'hpack-huffman-eos', 'table-size-update-too-big']) {
    const raw = await block(mode);
    t.throws(() => fieldsOf(raw), `${mode}: the block does not decode`);
  }
});

t.test('over HTTP/1.1 an /h2/* path is the real 421', async (t) => {
  const response = await fetch(`http://127.0.0.1:${port}/h2/rst`);
  t.equal(response.status, 421);
  t.notOk([...response.headers.keys()].some((name) => name.startsWith('x-chaos-')));
});

t.test('the preface only counts first: after an HTTP/1.1 request it is the 505 it always was', async (t) => {
  const net = await import('node:net');
  const socket = net.connect(port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  let text = '';
  socket.on('data', (chunk: Buffer) => void (text += chunk.toString('latin1')));
  socket.write('GET /status/200 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nPRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  await new Promise<void>((resolve) => socket.once('close', resolve).setTimeout(5000, resolve));
  t.match(text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*HTTP\/1\.1 505 /);
});

t.test('parameters over HTTP/2: a bad value is the real 400, a clamp is reported in x-chaos-clamped', async (t) => {
  const bad = await get('/h2/rst?at=abc', ended);
  const badFields = fieldsOf(ofType(bad.frames, FRAME.HEADERS)[0]!);
  t.same(badFields[0], [':status', '400']);
  t.notOk(badFields.some(([name]) => name.startsWith('x-chaos-')), 'no x-chaos-* on a real error');
  t.match(JSON.parse(Buffer.concat(ofType(bad.frames, FRAME.DATA).map((f) => f.payload)).toString()), { error: 'invalid_parameter', param: 'at' });
  const clamped = await get('/h2/rst?at=99999999', (f) => f.some((x) => x.type === FRAME.RST_STREAM));
  t.equal(field(fieldsOf(ofType(clamped.frames, FRAME.HEADERS)[0]!), 'x-chaos-clamped'), 'at=16384');
});
