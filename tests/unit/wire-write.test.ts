// How the Wire hands bytes to its socket: a small body leaves joined with the
// head in one buffer (one syscall); a large one (often a view of a shared
// buffer) is handed over as is, never copied per response, so slow readers
// cannot pin a copy each.
import type { Socket } from 'node:net';
import t from 'tap';
import { digitPattern } from '../../shared/content/payload/index.js';
import { JOIN_MAX_BYTES, Wire, type WireOwner } from '../../services/chaos/wire.js';

/** A socket that records what it is handed, and whether writes were corked together. */
function recordingSocket() {
  const writes: { chunk: Buffer | string; corked: boolean }[] = [];
  let corked = 0;
  const socket = {
    writableNeedDrain: false,
    write(chunk: Buffer | string) {
      writes.push({ chunk, corked: corked > 0 });
      return true;
    },
    cork() {
      corked++;
    },
    uncork() {
      corked--;
    },
  };
  return { socket: socket as unknown as Socket, writes };
}

const owner: WireOwner = { finished() {} };

t.test('a small body leaves joined with its head in one buffer', async (t) => {
  const { socket, writes } = recordingSocket();
  const wire = new Wire(socket, owner, false);
  wire.head(200, [['Content-Length', '5']]);
  wire.write(Buffer.from('hello'));
  wire.end();
  t.equal(writes.length, 1);
  t.equal(Buffer.from(writes[0]!.chunk as Buffer).toString('latin1'), 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
});

t.test('a large shared body is handed over without a copy, corked with its head', async (t) => {
  const { socket, writes } = recordingSocket();
  const wire = new Wire(socket, owner, false);
  const body = digitPattern(JOIN_MAX_BYTES + 1);
  wire.head(200, [['Content-Length', String(body.length)]]);
  wire.write(body);
  wire.end();
  t.equal(writes.length, 2);
  t.equal(writes[0]!.chunk, 'HTTP/1.1 200 OK\r\nContent-Length: 16385\r\n\r\n', 'the head first');
  t.equal(writes[1]!.chunk, body, 'the very buffer the endpoint wrote (no copy)');
  t.ok(writes.every((w) => w.corked), 'both in one corked batch (one writev)');
  t.equal(wire.bytesWritten, 16385 + (writes[0]!.chunk as string).length);
});

t.test('respond: a whole response leaves at once in one write, then ends with its action', async (t) => {
  const { socket, writes } = recordingSocket();
  const ended: string[] = [];
  const wire = new Wire(socket, { finished: (_w, action) => ended.push(action) }, false);
  wire.respond(404, 'HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\n', Buffer.from('hello'), 'hold');
  t.equal(writes.length, 1, 'written synchronously, before any tick');
  t.equal(Buffer.from(writes[0]!.chunk as Buffer).toString('latin1'), 'HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nhello');
  t.same(ended, ['hold']);
  t.equal(wire.status, 404);
  t.equal(wire.bytesWritten, 'HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nhello'.length);
  t.ok(wire.headWritten && wire.ended);
  t.throws(() => wire.respond(200, 'HTTP/1.1 200 OK\r\n\r\n', undefined), /head already written/);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(writes.length, 1, 'nothing more once the tick is over');
});

t.test('respond: HEAD and bodiless responses send the head alone', async (t) => {
  for (const [headOnly, body] of [[true, Buffer.from('hello')], [false, undefined]] as const) {
    const { socket, writes } = recordingSocket();
    const wire = new Wire(socket, owner, headOnly);
    wire.respond(200, 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n', body);
    t.same(writes.map((w) => w.chunk), ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n']);
    t.equal(wire.bytesWritten, 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n'.length);
  }
});

t.test('respond: a large shared body is handed over without a copy, corked with its head', async (t) => {
  const { socket, writes } = recordingSocket();
  const wire = new Wire(socket, owner, false);
  const body = digitPattern(JOIN_MAX_BYTES + 1);
  wire.respond(200, 'HTTP/1.1 200 OK\r\n\r\n', body);
  t.equal(writes.length, 2);
  t.equal(writes[1]!.chunk, body, 'the very buffer given (no copy)');
  t.ok(writes.every((w) => w.corked), 'both in one corked batch (one writev)');
});

t.test('respond after the client went away writes nothing but still ends', async (t) => {
  const { socket, writes } = recordingSocket();
  const ended: string[] = [];
  const wire = new Wire(socket, { finished: (_w, action) => ended.push(action) }, false);
  wire.socketClosed();
  wire.respond(200, 'HTTP/1.1 200 OK\r\n\r\n', Buffer.from('x'));
  t.equal(writes.length, 0);
  t.same(ended, ['keep-alive']);
  t.equal(wire.bytesWritten, 0);
});
