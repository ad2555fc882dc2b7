// What Wire.respond records for a replayable endpoint (the chaos host's
// replay, shared/pipeline/decision-memo.ts Recordings): the response with its Date line cut
// out, its body copied, within a byte budget shared by all the remembered
// decisions; a large body or a spent budget records nothing.
import type { Socket } from 'node:net';
import t from 'tap';
import { Recordings, type RecordingBudget } from '../../shared/pipeline/decision-memo.js';
import { dateLine } from '../../shared/primitives/headers.js';
import { JOIN_MAX_BYTES, Wire, type RecordedResponse, type WireOwner } from '../../services/chaos/wire.js';

const socket = { writableNeedDrain: false, write: () => true, cork() {}, uncork() {} } as unknown as Socket;
const owner: WireOwner = { finished() {} };

function respondRecorded(recordings: Recordings, variant: number, body: Buffer | undefined): string {
  const head = `HTTP/1.1 200 OK\r\nContent-Length: ${body?.length ?? 0}\r\n${dateLine()}X-Chaos-Test: 1\r\n\r\n`;
  const wire = new Wire(socket, owner, false);
  wire.recordInto(recordings, variant);
  wire.respond(200, head, body);
  return head;
}

t.test('the response is kept without its Date line, its body a copy of its own', async (t) => {
  const budget: RecordingBudget = { left: 10_000 };
  const recordings = new Recordings(budget);
  const shared = Buffer.from('0123456789abcdef');
  const body = shared.subarray(0, 10);
  const head = respondRecorded(recordings, 3, body);
  const recorded = recordings.byVariant[3] as RecordedResponse | undefined;
  t.ok(recorded, 'recorded in its variant');
  t.equal(recorded?.beforeDate, 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n');
  t.equal(recorded?.afterDate, 'X-Chaos-Test: 1\r\n\r\n');
  t.equal(recorded?.body?.toString('latin1'), '0123456789');
  t.not(recorded?.body?.buffer, shared.buffer, 'not a view of the buffer it came from');
  t.equal(recorded?.action, 'keep-alive');
  t.equal(budget.left, 10_000 - head.length - 10, 'the budget pays for head and body');
  t.equal(recordings.byVariant[0], undefined, 'other variants untouched');
});

t.test('the first answer of a variant stays', async (t) => {
  const recordings = new Recordings({ left: 10_000 });
  respondRecorded(recordings, 0, Buffer.from('first'));
  respondRecorded(recordings, 0, Buffer.from('second'));
  t.equal((recordings.byVariant[0] as RecordedResponse).body?.toString(), 'first');
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
