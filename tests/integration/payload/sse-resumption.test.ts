// Issue 30, /sse resumption on real sockets: the control twin continues after
// Last-Event-ID: N with id N+1 and answers any other value with a fresh
// stream (never a 5xx); each new chaos mode sends its exact bytes, fresh and
// resumed, reproducibly by seed. Then a real EventSource (Node 24's WHATWG
// one) reconnects against the twin and against each mode.
import t from 'tap';
import { dechunk, parseEventStream } from '../../helpers/event-stream.js';
import { runEventSource } from '../../helpers/eventsource.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const chaos = (await startChaos(t)).port;
const control = (await startHttp(t, 'control')).port;

// --- the expected streams, spelled out ---

const fields = (id: number, n: number, eol = '\n', type = 'tick'): string => `id: ${id}${eol}event: ${type}${eol}data: {"n":${n}}${eol}`;
const range = (from: number, count = 5): number[] => Array.from({ length: count }, (_, i) => from + i);
const stream = (ids: readonly number[], retry = 'retry: 3000\n\n'): string => retry + ids.map((i) => `${fields(i, i)}\n`).join('');
const RESUMED = (n: number): string => `: resuming after id ${n}\n`;
const UNRECOGNISED = ': Last-Event-ID is not an id of this stream (1 to 9 decimal digits); starting from id 1\n';

async function twin(lastEventId?: string): Promise<{ status: number; text: string; chaosLines: number; vary: string | undefined }> {
  const raw = await rawExchange(control, get('/sse', lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }), { until: completeByLength });
  const head = parseHead(raw.data);
  return { status: head.status, text: head.rest.toString('utf8'), chaosLines: head.headerLines.filter(([n]) => /^x-chaos-(?!origin|counterpart)/i.test(n)).length, vary: head.header('vary') };
}

async function chaosStream(query: string, lastEventId?: string): Promise<{ status: number; text: string; header: (name: string) => string | undefined; complete: boolean }> {
  const raw = await rawExchange(chaos, get(`/sse?${query}`, lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }), {
    until: (d) => d.includes('\r\n0\r\n\r\n') || d.subarray(0, 12).toString() === 'HTTP/1.1 400', timeoutMs: 3000,
  });
  const head = parseHead(raw.data);
  const { body, complete } = dechunk(head.rest);
  return { status: head.status, text: body.toString('utf8'), header: (name) => head.header(name), complete };
}

t.test('control /sse resumes: Last-Event-ID N gives ids N+1..N+5 after a comment saying so', async (t) => {
  t.equal((await twin()).text, stream(range(1)), 'no Last-Event-ID: ids 1..5, as before');
  t.equal((await twin('5')).vary, 'Last-Event-ID', 'the answer depends on Last-Event-ID, so it varies on it');
  t.equal((await twin('')).text, stream(range(1)), 'an empty one is no id');
  t.equal((await twin('5')).text, RESUMED(5) + stream(range(6)));
  t.equal((await twin('0')).text, RESUMED(0) + stream(range(1)));
  t.equal((await twin('007')).text, RESUMED(7) + stream(range(8)), 'leading zeros are digits');
  t.equal((await twin('999999999')).text, RESUMED(999_999_999) + stream(range(1_000_000_000)), 'the largest id it resumes after');
  const parsed = parseEventStream((await twin('41')).text);
  t.same(parsed.events.map((e) => e.lastEventId), ['42', '43', '44', '45', '46']);
  t.same(parsed.events.map((e) => JSON.parse(e.data) as unknown), range(42).map((n) => ({ n })), 'data n follows the id');
});

t.test('any other Last-Event-ID: a fresh stream (200, ids 1..5) with a comment, never a 5xx, the value never echoed', async (t) => {
  // (Spaces around a value are not part of it: HTTP strips them, so " 5" is 5.)
  const odd = ['abc', '-1', '+5', '1.5', '5 5', '1e3', '0x10', '1234567890', '9'.repeat(4000), '٣', '<script>', '5, 7'];
  for (const value of odd) {
    const label = JSON.stringify(value.slice(0, 20));
    const got = await twin(value);
    t.equal(got.status, 200, `control ${label}: 200`);
    t.equal(got.text, UNRECOGNISED + stream(range(1)), `control ${label}: from id 1`);
    const lie = await chaosStream('mode=skips-events', value);
    t.equal(lie.status, 200, `chaos ${label}: 200`);
    t.equal(lie.text, UNRECOGNISED + stream(range(1)), `chaos ${label}: a fresh stream, so honest`);
  }
  // Two Last-Event-ID lines are one value "5, 7" to both hosts: not an id.
  const twice = await rawExchange(control, Buffer.from('GET /sse HTTP/1.1\r\nHost: control.test\r\nLast-Event-ID: 5\r\nLast-Event-ID: 7\r\nConnection: close\r\n\r\n'), { until: completeByLength });
  t.equal(parseHead(twice.data).rest.toString(), UNRECOGNISED + stream(range(1)));
  // Past the header limits it is each host's real 431, no X-Chaos-* lie.
  for (const port of [chaos, control]) {
    const raw = await rawExchange(port, get('/sse', { 'Last-Event-ID': '9'.repeat(70_000) }), { until: completeByLength, timeoutMs: 3000 });
    const head = parseHead(raw.data);
    t.equal(head.status, 431, `${port === chaos ? 'chaos' : 'control'}: an oversized header is a 431`);
    t.same(head.headerLines.filter(([n]) => /^x-chaos-(?!origin|counterpart)/i.test(n)), []);
  }
});

/** Seed 42 (the default): skips 2, retry 0, ids in the order +0 +2 +4 +1 +3. Seed 2: retry 10^9. */
const CASES: readonly { mode: string; fresh: string; resumed: string; extra?: [string, string] }[] = [
  { mode: 'ignores-last-event-id', fresh: stream(range(1)), resumed: stream(range(1)) },
  { mode: 'replays-from-start', fresh: stream(range(1)), resumed: RESUMED(5) + stream([...range(1), ...range(6)]) },
  { mode: 'skips-events', fresh: stream(range(1)), resumed: RESUMED(5) + stream(range(8)), extra: ['x-chaos-sse-skipped', '2'] },
  {
    mode: 'ids-not-monotonic',
    fresh: `retry: 3000\n\n${[1, 3, 5, 2, 4].map((id, i) => `${fields(id, i + 1)}\n`).join('')}`,
    resumed: `${RESUMED(5)}retry: 3000\n\n${[6, 8, 10, 7, 9].map((id, i) => `${fields(id, i + 6)}\n`).join('')}`,
  },
  { mode: 'retry-absurd', fresh: stream(range(1), 'retry: 0\n\n'), resumed: RESUMED(5) + stream(range(6), 'retry: 0\n\n'), extra: ['x-chaos-sse-retry', '0'] },
  {
    mode: 'retry-absurd&seed=2',
    fresh: stream(range(1), 'retry: 1000000000\n\n'),
    resumed: RESUMED(5) + stream(range(6), 'retry: 1000000000\n\n'),
    extra: ['x-chaos-sse-retry', '1000000000'],
  },
  {
    mode: 'missing-data-prefix',
    fresh: `retry: 3000\n\n${range(1).map((i) => `id: ${i}\nevent: tick\n{"n":${i}}\n\n`).join('')}`,
    resumed: `${RESUMED(5)}retry: 3000\n\n${range(6).map((i) => `id: ${i}\nevent: tick\n{"n":${i}}\n\n`).join('')}`,
  },
  {
    mode: 'event-without-listener',
    fresh: `retry: 3000\n\n${range(1).map((i) => `${fields(i, i, '\n', 'update')}\n`).join('')}`,
    resumed: `${RESUMED(5)}retry: 3000\n\n${range(6).map((i) => `${fields(i, i, '\n', 'update')}\n`).join('')}`,
  },
  {
    mode: 'crlf-mix',
    fresh: `retry: 3000\r\n\r\n${fields(1, 1, '\r\n')}\r\n${fields(2, 2, '\n')}\n${fields(3, 3, '\r')}\r${fields(4, 4, '\r\n')}\r\n${fields(5, 5, '\n')}\n`,
    resumed: `${RESUMED(5)}retry: 3000\r\n\r\n${fields(6, 6, '\r\n')}\r\n${fields(7, 7, '\n')}\n${fields(8, 8, '\r')}\r${fields(9, 9, '\r\n')}\r\n${fields(10, 10, '\n')}\n`,
  },
];

t.test('chaos /sse: each resumption mode sends its exact bytes, fresh and after Last-Event-ID: 5', async (t) => {
  for (const c of CASES) {
    for (const [which, lastEventId, expected] of [['fresh', undefined, c.fresh], ['resumed', '5', c.resumed]] as const) {
      const got = await chaosStream(`mode=${c.mode}`, lastEventId);
      t.equal(got.status, 200, `${c.mode} ${which}`);
      t.equal(got.header('x-chaos-sse-mode'), c.mode.split('&')[0]);
      t.equal(got.header('content-type'), 'text/event-stream; charset=utf-8');
      t.equal(got.header('vary'), 'Last-Event-ID', `${c.mode} ${which}: varies on Last-Event-ID like the twin`);
      t.ok(got.complete, `${c.mode} ${which}: ends with the last chunk`);
      t.equal(got.text, expected, `${c.mode} ${which}: exact stream`);
      if (c.extra) t.equal(got.header(c.extra[0]), c.extra[1], `${c.mode}: ${c.extra[0]}`);
    }
    const again = await chaosStream(`mode=${c.mode}`, '5');
    t.equal(again.text, c.resumed, `${c.mode}: the same bytes again (seeded)`);
  }
  // What a WHATWG parser makes of them.
  t.same(parseEventStream(CASES.find((c) => c.mode === 'crlf-mix')?.fresh ?? '').events, parseEventStream(stream(range(1))).events, 'crlf-mix: the twin\'s five events');
  const blind = parseEventStream(CASES.find((c) => c.mode === 'missing-data-prefix')?.fresh ?? '');
  t.same([blind.events.length, blind.lastEventId], [0, '5'], 'missing-data-prefix: no event, yet the last event id moves to 5');
  t.same(parseEventStream(CASES.find((c) => c.mode === 'event-without-listener')?.fresh ?? '').events.map((e) => e.type), Array(5).fill('update'));
  const seeds = new Set<string>();
  for (const seed of ['1', '2', '3', '7', 'a', 'b']) seeds.add((await chaosStream(`mode=ids-not-monotonic&seed=${seed}`)).text);
  t.ok(seeds.size >= 3, `the seed changes the order (${seeds.size} orders from 6 seeds)`);
});

t.test('chaos /sse: replays-from-start replays at most 95 old events; the older modes resume from N+1', async (t) => {
  const far = await chaosStream('mode=replays-from-start', '1000');
  t.same(parseEventStream(far.text).events.map((e) => Number(e.lastEventId)), [...range(1, 95), ...range(1001)], '95 replayed, then 1001..1005');
  t.equal((await chaosStream('mode=id-backwards', '10')).text, `${RESUMED(10)}retry: 3000\n\n${[15, 14, 13, 12, 11].map((id, i) => `${fields(id, 11 + i)}\n`).join('')}`);
  t.equal((await chaosStream('mode=cut-mid-event', '10')).text, `${RESUMED(10)}retry: 3000\n\n${fields(11, 11)}\n${fields(12, 12)}\nid: 13\nevent: tick\ndata: {"n":`);
  t.equal((await chaosStream('mode=wrong-content-type', '10')).text, RESUMED(10) + stream(range(11)));
  t.equal((await chaosStream('mode=nope')).status, 400, 'an unknown mode is still a 400');
  t.equal((await chaosStream('seed=' + 'x'.repeat(300))).status, 400, 'a seed over 256 characters is a 400');
});

// --- a real EventSource: Node 24's WHATWG EventSource in a child process ---

t.test('EventSource against the twin: reconnects after retry 3000 with Last-Event-ID 5 and gets 6..10', async (t) => {
  const run = await runEventSource(`http://127.0.0.1:${control}/sse`, 8000, 10);
  t.same(run.events.map((e) => e.type), Array(10).fill('tick'), 'every event reaches the tick listener, none onmessage');
  t.same(run.events.map((e) => e.id), range(1, 10).map(String), 'ids 1..10 over two connections');
  t.equal(run.opens, 2, 'two connections');
});

/** Node's EventSource per mode, ~6 s each: ids the tick listener saw, by connection. */
const CLIENT_CASES: readonly { mode: string; ids: string[]; opens?: number; note: string }[] = [
  { mode: 'ignores-last-event-id', ids: [...range(1), ...range(1)].map(String), note: 'the same five again: it never gets further' },
  { mode: 'replays-from-start', ids: [...range(1), ...range(1)].map(String), note: 'the replayed 1..5 are dispatched again (no dedup by id)' },
  { mode: 'skips-events', ids: [...range(1), ...range(8)].map(String), note: '6 and 7 are lost without a sign' },
  { mode: 'ids-not-monotonic', ids: ['1', '3', '5', '2', '4', '5', '7', '9', '6', '8'], note: 'resumes after 4, the last id seen: 5 comes twice' },
  { mode: 'retry-absurd&seed=2', ids: range(1).map(String), opens: 1, note: 'retry 10^9: it never reconnects' },
  { mode: 'missing-data-prefix', ids: [], note: 'nothing is dispatched' },
  { mode: 'event-without-listener', ids: [], note: 'update events reach neither tick nor onmessage' },
  { mode: 'crlf-mix', ids: range(1, 10).map(String), note: 'all three line endings parsed, the split CRLF as one' },
];

t.test('EventSource against each resumption mode', async (t) => {
  // Two at a time: each child runs up to 6.5 s.
  for (let i = 0; i < CLIENT_CASES.length; i += 2) {
    await Promise.all(CLIENT_CASES.slice(i, i + 2).map(async (c) => {
      const run = await runEventSource(`http://127.0.0.1:${chaos}/sse?mode=${c.mode}`, 6500, 10);
      t.same(run.events.filter((e) => e.type === 'tick').map((e) => e.id), c.ids, `${c.mode}: ${c.note}`);
      t.same(run.events.filter((e) => e.type !== 'tick'), [], `${c.mode}: nothing for onmessage`);
      if (c.opens !== undefined) t.equal(run.opens, c.opens, `${c.mode}: ${c.opens} connection(s)`);
    }));
  }
  // retry 0: it reconnects at once; the run stops itself at 10 events, so the load stays bounded.
  const eager = await runEventSource(`http://127.0.0.1:${chaos}/sse?mode=retry-absurd`, 6500, 10);
  t.same(eager.events.map((e) => e.id), ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'], 'retry 0: the next connection follows at once');
});
