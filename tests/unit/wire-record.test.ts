// What Wire.respond records for a replayable endpoint (the chaos host's
// replay, shared/pipeline/decision-memo.ts Recordings): the response as it
// went out, in a buffer of its own, with where its Date line is; replayed with
// the current Date in a new buffer each second, never rewritten in place. All
// within a byte budget shared by all the remembered decisions; a large body or
// a spent budget records nothing.
import type { Socket } from 'node:net';
import t from 'tap';
import { Recordings, type RecordingBudget } from '../../shared/pipeline/decision-memo.js';
import { dateLine } from '../../shared/primitives/headers.js';
import { JOIN_MAX_BYTES, Wire, type RecordedResponse, type WireOwner } from '../../services/chaos/wire.js';

const socket = { writableNeedDrain: false, write: () => true, cork() {}, uncork() {} } as unknown as Socket;
const owner: WireOwner = { finished() {} };

/** The Date line a head was built with (a replay within its second carries that one). */
function dateIn(head: string): string {
  return (/Date: [^\r]*\r\n/.exec(head) as RegExpExecArray)[0];
}

function respondRecorded(recordings: Recordings, variant: number, body: Buffer | undefined, headOnly = false): string {
  const head = `HTTP/1.1 200 OK\r\nContent-Length: ${body?.length ?? 0}\r\n${dateLine()}X-Chaos-Test: 1\r\n\r\n`;
  const wire = new Wire(socket, owner, headOnly);
  wire.recordInto(recordings, variant);
  wire.respond(200, head, body);
  return head;
}

t.test('the response is kept as it went out, in a buffer of its own', async (t) => {
  const budget: RecordingBudget = { left: 10_000 };
  const recordings = new Recordings(budget);
  const shared = Buffer.from('0123456789abcdef');
  const body = shared.subarray(0, 10);
  const head = respondRecorded(recordings, 3, body);
  const recorded = recordings.byVariant[3] as RecordedResponse | undefined;
  t.ok(recorded, 'recorded in its variant');
  const bytes = recorded?.bytesWith(dateIn(head));
  t.equal(bytes?.toString('latin1'), `${head}0123456789`);
  t.not(bytes?.buffer, shared.buffer, 'not a view of the buffer it came from');
  t.equal(recorded?.dateAt, head.indexOf('Date: '), 'where its Date line is');
  t.equal(recorded?.action, 'keep-alive');
  t.equal(recorded?.status, 200);
  t.equal(budget.left, 10_000 - head.length - 10, 'the budget pays for head and body');
  t.equal(recordings.byVariant[0], undefined, 'other variants untouched');
});

t.test('a HEAD variant keeps the head alone', async (t) => {
  const budget: RecordingBudget = { left: 10_000 };
  const recordings = new Recordings(budget);
  const head = respondRecorded(recordings, 4, Buffer.from('0123456789'), true);
  const recorded = recordings.byVariant[4] as RecordedResponse;
  t.equal(recorded.bytesWith(dateIn(head))?.toString('latin1'), head, 'Content-Length: 10, no body');
  t.equal(budget.left, 10_000 - head.length);
});

t.test('a replay carries the current Date: one buffer a second, the old one never rewritten', async (t) => {
  const recordings = new Recordings({ left: 10_000 });
  const head = respondRecorded(recordings, 0, Buffer.from('body'));
  const recorded = recordings.byVariant[0] as RecordedResponse;
  const date = dateIn(head);
  const now = recorded.bytesWith(date) as Buffer;
  t.equal(recorded.bytesWith(date), now, 'the same second: the same buffer');
  const later = dateLine(Date.now() + 3_600_000);
  const moved = recorded.bytesWith(later) as Buffer;
  t.not(moved, now, 'a new second: a new buffer');
  t.equal(moved.toString('latin1'), `${head.replace(date, later)}body`, 'the Date line replaced, nothing else');
  t.equal(now.toString('latin1'), `${head}body`, 'the buffer a socket may still queue is untouched');
  t.equal(recorded.bytesWith(later), moved, 'kept for that second');
  t.equal(recorded.bytesWith('Date: not as long\r\n'), undefined, 'a Date line of another length: no replay');
  dateLine();
});

t.test('respondRecorded writes the bytes in one write and counts them', async (t) => {
  const written: unknown[] = [];
  const ends: string[] = [];
  const recording = { writableNeedDrain: false, write: (chunk: unknown) => written.push(chunk) > 0, cork() {}, uncork() {} } as unknown as Socket;
  const wire = new Wire(recording, { finished: (_wire, action) => void ends.push(action) }, false);
  const bytes = Buffer.from('HTTP/1.1 204 No Content\r\n\r\n', 'latin1');
  wire.respondRecorded(204, bytes, 'close');
  t.same(written, [bytes], 'the buffer itself, once');
  t.equal(wire.bytesWritten, bytes.length);
  t.equal(wire.status, 204);
  t.same(ends, ['close'], 'ended with the recorded action');
  t.throws(() => wire.respondRecorded(204, bytes, 'close'), /head already written/);
});

t.test('the first answer of a variant stays', async (t) => {
  const recordings = new Recordings({ left: 10_000 });
  respondRecorded(recordings, 0, Buffer.from('first'));
  respondRecorded(recordings, 0, Buffer.from('second'));
  t.match((recordings.byVariant[0] as RecordedResponse).bytesWith(dateLine())?.toString(), /first$/, 'whatever its Date line');
});

t.test('nothing is recorded past the budget, or for a large body', async (t) => {
  const budget: RecordingBudget = { left: 50 };
  const small = new Recordings(budget);
  respondRecorded(small, 0, Buffer.from('too much for fifty bytes with the head'));
  t.equal(small.byVariant[0], undefined, 'over the budget: not kept');
  t.equal(budget.left, 50, 'and nothing taken');
  const roomy = new Recordings({ left: 10 * JOIN_MAX_BYTES });
  respondRecorded(roomy, 0, Buffer.alloc(JOIN_MAX_BYTES + 1));
  t.equal(roomy.byVariant[0], undefined, 'a body past JOIN_MAX_BYTES: not kept');
  respondRecorded(roomy, 1, undefined);
  t.ok(roomy.byVariant[1], 'a head alone is kept');
});

t.test('a wire that was not asked records nothing', async (t) => {
  const recordings = new Recordings({ left: 10_000 });
  const wire = new Wire(socket, owner, false);
  wire.respond(200, `HTTP/1.1 200 OK\r\n${dateLine()}\r\n`, undefined);
  t.same(recordings.byVariant, []);
});
