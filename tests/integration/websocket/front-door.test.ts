// WebSockets through the front door (issue 27), with real HAProxy: chaos's
// through the tcp route, byte for byte (the same frames as a direct
// connection); control's through the http frontend, whose tunnel after the
// 101 carries frames both ways (`timeout tunnel`); a plain GET is the real 426
// on both.
import t from 'tap';
import WebSocketClient from 'ws';
import { clientFrame, closeBody, headerOf, RawWs } from '../../helpers/ws-raw.js';
import { startStack } from '../../helpers/stack.js';

const TEXT = 0x1;
const CLOSE = 0x8;

t.test('through the front door', async (t) => {
  const stack = await startStack(t, { RATE_LIMIT_GENERAL: '0' });
  const chaosHost = new URL(stack.urls.chaos).host;
  const controlHost = new URL(stack.urls.control).host;

  const open = async (path: string, host: string): Promise<{ ws: RawWs; head: string }> => {
    const ws = await RawWs.connect(stack.front, path, { Host: host });
    t.teardown(() => ws.destroy());
    return { ws, head: await ws.waitHead() };
  };

  await t.test('chaos: the lies reach the client untouched (tcp route)', async (t) => {
    const { ws, head } = await open('/ws/frames?mode=rsv1&after=1', chaosHost);
    t.match(head, /^HTTP\/1\.1 101 /);
    t.equal(headerOf(head, 'X-Chaos-Mode'), 'rsv1', 'X-Chaos-* in the 101');
    ws.send(clientFrame(TEXT, 'through'));
    const [echo, lie] = await ws.waitFrames(2);
    t.equal(echo?.payload.toString(), 'through', 'the echo');
    t.ok(lie && lie.rsv === 0x40, 'the RSV1 frame as written');
    const masked = await open('/ws/frames?mode=masked', chaosHost);
    t.ok((await masked.ws.waitFrames(1))[0]?.masked, 'a masked server frame passes');
    const close = await open('/ws/close?mode=reserved-code&code=1015', chaosHost);
    const [frame] = await close.ws.waitFrames(1);
    t.equal(frame && closeBody(frame).code, 1015, 'close code 1015 on the wire');
    const reset = await open('/ws/close?mode=reset', chaosHost);
    t.not(await reset.ws.waitEnd(), 'timeout', 'reset: the connection ends');
  });

  await t.test('control: the twin through the http frontend, frames both ways', async (t) => {
    const { ws, head } = await open('/ws/echo', controlHost);
    t.match(head, /^HTTP\/1\.1 101 /);
    t.equal(headerOf(head, 'X-Chaos-Origin'), 'control');
    ws.send(clientFrame(TEXT, 'one'));
    ws.send(clientFrame(TEXT, 'two'));
    const frames = await ws.waitFrames(2);
    t.same(frames.map((f) => [f.opcode, f.payload.toString(), f.masked, f.rsv]), [[TEXT, 'one', false, 0], [TEXT, 'two', false, 0]]);
    ws.send(clientFrame(CLOSE, Buffer.from([0x0f, 0xa1])));
    const [, , reply] = await ws.waitFrames(3);
    t.ok(reply?.opcode === CLOSE && closeBody(reply).code === 4001, 'the close answered with its code');
    // A library client too, by the front door's name (the Host header it sends).
    const seen = await new Promise<string>((resolve) => {
      const client = new WebSocketClient(`ws://127.0.0.1:${stack.front}/ws/close?code=4002&reason=front`, { headers: { Host: controlHost } });
      client.on('error', (error) => resolve(`error ${error.message}`));
      client.on('close', (code, reason) => resolve(`close ${code} ${reason.toString()}`));
    });
    t.equal(seen, 'close 4002 front', 'ws sees the clean close');
  });

  await t.test('a plain GET is the real 426 on both hosts', async (t) => {
    for (const host of [chaosHost, controlHost]) {
      const ws = await RawWs.connect(stack.front, '', {}, `GET /ws/frames HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      const head = await ws.waitHead();
      ws.destroy();
      t.match(head, /^HTTP\/1\.1 426 /, `${host}: 426`);
      t.match(head, /\r\nupgrade: websocket\r\n/i, `${host}: Upgrade: websocket`);
      t.notMatch(head, /x-chaos-/i, `${host}: no X-Chaos-* line`);
    }
  });
});
