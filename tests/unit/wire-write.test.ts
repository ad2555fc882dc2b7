// How the Wire hands bytes to its socket: a small body leaves joined with the
// head in one buffer (one syscall); a large one (often a view of a shared
// buffer) is handed over as is, never copied per response, so slow readers
// cannot pin a copy each.
import type { Socket } from 'node:net';
import t from 'tap';
import { digitPattern } from '../../shared/content/payload.js';
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
