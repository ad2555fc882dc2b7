// The wire faults (services/chaos/faults/) on real TCP sockets: a tiny net
// server writes an honest response through a fault chain to a Wire, and the
// raw client sees exactly what a fault makes of it, when, and how the
// connection ends. Timings have a tolerance; cancellation is checked by the
// handler never running and no timer left behind.
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { formatHead, type HeaderList } from '../../../shared/primitives/headers.js';
import { seededBytes } from '../../../shared/primitives/seed.js';
import { CHUNKED_CORRUPTIONS, JUNK_EXTENSIONS, chunkedCorrupt } from '../../../services/chaos/faults/chunked-corrupt.js';
import { closeEarly } from '../../../services/chaos/faults/close-early.js';
import { delayFirstByte } from '../../../services/chaos/faults/delay-first-byte.js';
import { drip } from '../../../services/chaos/faults/drip.js';
import { garbage } from '../../../services/chaos/faults/garbage.js';
import { headerInject } from '../../../services/chaos/faults/header-inject.js';
import { FAULT_SLUGS, faultsFor } from '../../../services/chaos/faults/index.js';
import { resetAt } from '../../../services/chaos/faults/reset-at.js';
import { slowHead } from '../../../services/chaos/faults/slow-head.js';
import { compose, type Fault } from '../../../services/chaos/faults/stage.js';
import { truncateAt } from '../../../services/chaos/faults/truncate-at.js';
import { Wire, type EndAction, type ResponseSink } from '../../../services/chaos/wire.js';
import { RawConn } from '../../helpers/conn.js';
import { rawExchange, type RawResult } from '../../helpers/raw.js';

const REQUEST = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
const HEAD_REQUEST = 'HEAD / HTTP/1.1\r\nHost: x\r\n\r\n';
const HEADERS: HeaderList = [['Content-Type', 'text/plain'], ['Content-Length', '20'], ['Date', 'D']];
const BODY = Buffer.from('abcdefghijklmnopqrst', 'latin1');
const HONEST_HEAD = formatHead(200, 'OK', HEADERS);

interface Served {
  readonly port: number;
  /** Each connection's Wire, in arrival order. */
  readonly wires: Wire[];
  readonly actions: EndAction[];
}

/**
 * A net server that answers the first bytes of each connection by calling
 * `respond` with a fresh Wire; the owner does what the chaos connection does
 * with an end action (FIN, RST, or hold), for this one response.
 */
async function serve(
  t: { teardown(fn: () => unknown): void },
  respond: (wire: Wire) => void,
): Promise<Served> {
  const wires: Wire[] = [];
  const actions: EndAction[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', (data) => {
      const owner = {
        finished(_wire: Wire, action: EndAction): void {
          actions.push(action);
          if (action === 'reset') socket.resetAndDestroy();
          else if (action !== 'hold') socket.end();
        },
      };
      const wire = new Wire(socket, owner, data.toString('latin1').startsWith('HEAD '));
      socket.on('close', () => {
        sockets.delete(socket);
        wire.socketClosed();
      });
      wires.push(wire);
      respond(wire);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as net.AddressInfo).port, wires, actions };
}

/** The honest response: a 20-byte body behind an accurate Content-Length. */
function honest(sink: ResponseSink, end: EndAction = 'keep-alive'): void {
  sink.head(200, HEADERS);
  sink.write(BODY);
  sink.end(end);
}

/** Serves the honest response through `faults` and fetches it once. */
async function through(t: { teardown(fn: () => unknown): void }, faults: readonly Fault[], request = REQUEST): Promise<RawResult & Served> {
  const served = await serve(t, (wire) => honest(compose(wire, faults)));
  const result = await rawExchange(served.port, request, { timeoutMs: 3000 });
  return { ...result, ...served };
}

function timeouts(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

async function eventually(test: () => boolean, timeoutMs = 2000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (test()) return true;
    await sleep(10);
  }
  return test();
}

t.test('the Wire records what it sent: status, bytes, end action', async (t) => {
  const cases: { name: string; respond: (wire: Wire) => void; status: number | undefined; action: EndAction }[] = [
    { name: 'head()', respond: (w) => honest(w), status: 200, action: 'keep-alive' },
    {
      name: 'a raw head after an interim 1xx',
      respond: (w) => {
        w.rawHead('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n');
        w.write('no');
        w.end('close');
      },
      status: 404,
      action: 'close',
    },
    { name: 'a bare-LF raw head', respond: (w) => (w.rawHead('HTTP/1.1 418 Teapot\nContent-Length: 0\n\n'), w.end('close')), status: 418, action: 'close' },
    { name: 'a raw head with no parsable status line', respond: (w) => (w.rawHead('HTTP/1.1 2OO OK\r\n\r\n'), w.end('close')), status: undefined, action: 'close' },
    { name: 'no head at all', respond: (w) => (w.writeRaw('junk'), w.end('close')), status: undefined, action: 'close' },
    { name: 'a head in raw pieces, its status given', respond: (w) => (w.writeRaw('HTTP/1.1 50', 503), w.writeRaw('3 X\r\n\r\n'), w.end('close')), status: 503, action: 'close' },
  ];
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      const { port, wires } = await serve(t, c.respond);
      const r = await rawExchange(port, REQUEST, { timeoutMs: 2000 });
      const wire = wires[0] as Wire;
      t.equal(wire.status, c.status, 'status');
      t.equal(wire.bytesWritten, r.data.length, 'bytesWritten is what the client received');
      t.equal(wire.endAction, c.action, 'end action');
    });
  }
  await t.test('HEAD: the head counts, the dropped body does not', async (t) => {
    const { port, wires } = await serve(t, (w) => honest(w, 'close'));
    const r = await rawExchange(port, HEAD_REQUEST, { timeoutMs: 2000 });
    t.equal(r.data.toString('latin1'), HONEST_HEAD);
    t.equal(wires[0]?.bytesWritten, HONEST_HEAD.length);
  });
  await t.test('a reset that drops the held head counts nothing', async (t) => {
    const { port, wires } = await serve(t, (w) => (w.head(500, HEADERS), w.end('reset')));
    const r = await rawExchange(port, REQUEST, { timeoutMs: 2000 });
    t.equal(r.end, 'reset');
    t.equal(r.data.length, 0);
    t.equal(wires[0]?.bytesWritten, 0);
    t.equal(wires[0]?.status, 500, 'the status the response carried');
    t.equal(wires[0]?.endAction, 'reset');
  });
});

t.test('no fault: compose returns the wire itself', async (t) => {
  const { port, wires } = await serve(t, (wire) => {
    t.equal(compose(wire, []), wire);
    honest(wire, 'close');
  });
  await rawExchange(port, REQUEST);
  t.equal(wires.length, 1);
});

t.test('delay-first-byte', async (t) => {
  await t.test('nothing before the delay, then the whole response in one piece', async (t) => {
    const r = await through(t, [delayFirstByte(150)]);
    t.equal(r.data.toString('latin1'), HONEST_HEAD + BODY.toString('latin1'));
    t.ok(r.arrivals[0]!.at >= 140 && r.arrivals[0]!.at < 1000, `first byte at ${r.arrivals[0]!.at.toFixed(0)} ms`);
    t.equal(r.arrivals.length, 1);
  });
  await t.test('an endpoint waiting on whenWritable runs when the delay is over', async (t) => {
    let builtAt = 0;
    const start = performance.now();
    const { port } = await serve(t, (wire) => {
      const sink = compose(wire, [delayFirstByte(100)]);
      sink.whenWritable(() => {
        builtAt = performance.now() - start;
        honest(sink, 'close');
      });
    });
    const r = await rawExchange(port, REQUEST);
    t.equal(r.data.length, HONEST_HEAD.length + BODY.length);
    t.ok(builtAt >= 95, `the response was built after the delay (${builtAt.toFixed(0)} ms)`);
  });
  await t.test('a client that leaves mid-delay: the handler never runs, no timer left', async (t) => {
    let ran = 0;
    const before = timeouts();
    const { port, wires } = await serve(t, (wire) => {
      const sink = compose(wire, [delayFirstByte(300)]);
      sink.whenWritable(() => {
        ran++;
        honest(sink);
      });
    });
    const conn = await RawConn.open(port);
    conn.write(REQUEST);
    t.ok(await eventually(() => wires.length === 1), 'the request arrived');
    t.ok(timeouts() > before, 'the delay is a pending timer');
    conn.destroy();
    t.ok(await eventually(() => wires[0]!.closed), 'the wire saw the close');
    t.ok(await eventually(() => timeouts() <= before), 'the delay timer died with the socket');
    await sleep(400);
    t.equal(ran, 0, 'the handler never ran');
  });
});

t.test('drip: slices on an absolute schedule; HEAD is not delayed', async (t) => {
  const r = await through(t, [drip(5, 60)]);
  t.equal(r.data.toString('latin1'), HONEST_HEAD + BODY.toString('latin1'));
  t.same(r.arrivals.map((a) => a.bytes), [HONEST_HEAD.length + 5, 5, 5, 5], 'head with the first slice, then one slice per interval');
  const last = r.arrivals.at(-1)!.at;
  t.ok(last >= 170 && last < 1000, `last slice ~180 ms in (${last.toFixed(0)} ms)`);
  t.same(r.actions, ['keep-alive'], 'ends as the layer above asked, after the last slice');
  const head = await through(t, [drip(5, 60)], HEAD_REQUEST);
  t.equal(head.data.toString('latin1'), HONEST_HEAD);
  t.ok(head.elapsedMs < 150, 'no wait for a body that is not sent');
});

t.test('drip and slow-head: the first piece leaves in the turn the schedule starts, not with the turn\'s batch', async (t) => {
  for (const [name, fault] of [
    ['drip', drip(5, 100)],
    ['slow-head', slowHead(8, 100)],
  ] as const) {
    const seen: { held: number; corked: number }[] = [];
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => {
        const wire = new Wire(socket, { finished: () => socket.end() }, false);
        honest(compose(wire, [fault]));
        // Still inside the turn that started the schedule: under load its end can be far off.
        seen.push({ held: socket.writableLength, corked: socket.writableCorked });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const result = await rawExchange(port, REQUEST, { timeoutMs: 5000, until: (data) => data.includes('pqrst') });
    server.close();
    t.same(seen, [{ held: 0, corked: 0 }], `${name}: the first piece was handed to the kernel at once`);
    t.ok(result.data.toString('latin1').endsWith('pqrst'), `${name}: the whole response came`);
  }
});

t.test('drip: a client that leaves mid-stream leaves no timer', async (t) => {
  const before = timeouts();
  const { port, wires } = await serve(t, (wire) => honest(compose(wire, [drip(1, 50)])));
  const conn = await RawConn.open(port);
  conn.write(REQUEST);
  t.ok(await conn.waitFor((d) => d.length > HONEST_HEAD.length), 'streaming has started');
  conn.destroy();
  t.ok(await eventually(() => wires[0]!.closed));
  t.ok(await eventually(() => timeouts() <= before), 'no timer left behind');
  t.notOk(wires[0]!.ended, 'the response never finished');
});

t.test('truncate-at: the first `at` body bytes, then a FIN', async (t) => {
  const r = await through(t, [truncateAt(7)]);
  t.equal(r.data.toString('latin1'), HONEST_HEAD + 'abcdefg');
  t.equal(r.end, 'fin');
  t.same(r.actions, ['close']);
  t.equal(r.wires[0]!.bytesWritten, r.data.length);
  const longer = await through(t, [truncateAt(100)]);
  t.equal(longer.data.length, HONEST_HEAD.length + BODY.length, 'a shorter body is not cut');
  t.same(longer.actions, ['keep-alive']);
});

t.test('reset-at', async (t) => {
  await t.test('before-head: nothing, then a reset', async (t) => {
    const r = await through(t, [resetAt('before-head')]);
    t.equal(r.end, 'reset');
    t.equal(r.data.length, 0);
    t.equal(r.wires[0]!.bytesWritten, 0);
  });
  await t.test('after-head: the head, then a reset', async (t) => {
    const r = await through(t, [resetAt('after-head')]);
    t.equal(r.end, 'reset');
    t.equal(r.data.toString('latin1'), HONEST_HEAD);
    t.equal(r.wires[0]!.status, 200);
  });
  await t.test('mid-body: the head and `afterBytes` body bytes, then a reset', async (t) => {
    const r = await through(t, [resetAt('mid-body', 12)]);
    t.equal(r.end, 'reset');
    t.equal(r.data.toString('latin1'), HONEST_HEAD + 'abcdefghijkl');
    t.same(r.actions, ['reset']);
  });
});

t.test('garbage: n seeded bytes instead of the head, then a FIN, HEAD included', async (t) => {
  for (const request of [REQUEST, HEAD_REQUEST]) {
    const r = await through(t, [garbage(300, 'g1')], request);
    t.same(r.data, seededBytes('g1', 300));
    t.equal(r.end, 'fin');
    t.equal(r.wires[0]!.status, undefined, 'no status was sent');
    t.equal(r.wires[0]!.bytesWritten, 300);
  }
  const empty = await through(t, [garbage(0, 'g1')]);
  t.equal(empty.data.length, 0, 'n=0: an empty reply');
  t.equal(empty.end, 'fin');
});

t.test('close-early: no Content-Length, Connection: close after Date, the first bytes, FIN', async (t) => {
  const r = await through(t, [closeEarly(9)]);
  t.equal(r.data.toString('latin1'), 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: D\r\nConnection: close\r\n\r\nabcdefghi');
  t.equal(r.end, 'fin');
  await t.test('a raw head: its Content-Length goes, its own Connection line stays', async (t) => {
    const { port } = await serve(t, (wire) => {
      const sink = compose(wire, [closeEarly()]);
      sink.rawHead('HTTP/1.1 200 OK\nContent-Length: 3\nConnection: keep-alive\n\n');
      sink.write('abc');
      sink.end();
    });
    const raw = await rawExchange(port, REQUEST);
    t.equal(raw.data.toString('latin1'), 'HTTP/1.1 200 OK\nConnection: keep-alive\n\nabc');
    t.equal(raw.end, 'fin');
  });
});

t.test('header-inject', async (t) => {
  const lines: HeaderList = [['X-Chaos-A', '1'], ['X-Chaos-B', '2']];
  const cases: { name: string; head: string; expected: string }[] = [
    { name: 'a CRLF head', head: 'HTTP/1.1 200 OK\r\nA: 1\r\n\r\n', expected: 'HTTP/1.1 200 OK\r\nA: 1\r\nX-Chaos-A: 1\r\nX-Chaos-B: 2\r\n\r\n' },
    { name: 'a bare-LF head keeps LF ends', head: 'HTTP/1.1 200 OK\nA: 1\n\n', expected: 'HTTP/1.1 200 OK\nA: 1\nX-Chaos-A: 1\nX-Chaos-B: 2\n\n' },
    {
      name: 'after an interim 1xx: into the final head',
      head: 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nA: 1\r\n\r\n',
      expected: 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nA: 1\r\nX-Chaos-A: 1\r\nX-Chaos-B: 2\r\n\r\n',
    },
    { name: 'a head with no blank line: after the status line', head: 'HTTP/1.1 200 OK\r\nA: 1\r\n', expected: 'HTTP/1.1 200 OK\r\nX-Chaos-A: 1\r\nX-Chaos-B: 2\r\nA: 1\r\n' },
  ];
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      const { port, wires } = await serve(t, (wire) => {
        const sink = compose(wire, [headerInject(lines)]);
        sink.rawHead(c.head);
        sink.end('close');
      });
      t.equal((await rawExchange(port, REQUEST)).data.toString('latin1'), c.expected);
      t.equal(wires[0]!.status, 200);
    });
  }
  await t.test('head(): appended after the given lines', async (t) => {
    const r = await through(t, [headerInject(lines)]);
    t.equal(r.data.toString('latin1'), formatHead(200, 'OK', [...HEADERS, ...lines]) + BODY.toString('latin1'));
  });
});

t.test('chunked-corrupt', async (t) => {
  const head = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nDate: D\r\n\r\n';
  const expected = {
    'bad-size': `${head}zz\r\nabcdefghijklmnopqrst\r\n0\r\n\r\n`,
    overstated: `${head}15\r\nabcdefghijklmnopqrst\r\n0\r\n\r\n`,
    'cut-chunk': `${head}414\r\nabcdefghijklmnopqrst`,
    'no-last-chunk': `${head}14\r\nabcdefghijklmnopqrst\r\n`,
    'junk-extensions': `${head}14${JUNK_EXTENSIONS}\r\nabcdefghijklmnopqrst\r\n0\r\n\r\n`,
    'junk-trailers': `${head}14\r\nabcdefghijklmnopqrst\r\n0\r\nthis is not a field\r\nX Chaos Trailer: space in the name\r\n: empty name\r\n\r\n`,
    // Content-Length stays where it was, and chunked is added after the other lines.
    'cl-and-te': `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 20\r\nDate: D\r\nTransfer-Encoding: chunked\r\n\r\n14\r\nabcdefghijklmnopqrst\r\n0\r\n\r\n`,
  } as const;
  t.same(Object.keys(expected), [...CHUNKED_CORRUPTIONS], 'every corruption is checked');
  for (const [kind, bytes] of Object.entries(expected) as [keyof typeof expected, string][]) {
    const r = await through(t, [chunkedCorrupt(kind)]);
    t.equal(r.data.toString('latin1'), bytes, kind);
    t.equal(r.end, 'fin', `${kind}: closed after the body`);
  }
  await t.test('a raw head: only the final head is reframed, after an interim 1xx', async (t) => {
    const { port, wires } = await serve(t, (wire) => {
      const sink = compose(wire, [chunkedCorrupt('no-last-chunk')]);
      sink.rawHead('HTTP/1.1 103 Early Hints\r\nContent-Length: 9\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\n');
      sink.write('abc');
      sink.end();
    });
    const raw = await rawExchange(port, REQUEST);
    t.equal(
      raw.data.toString('latin1'),
      'HTTP/1.1 103 Early Hints\r\nContent-Length: 9\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n',
    );
    t.equal(wires[0]!.status, 201);
  });
});

t.test('slow-head: the head trickles, the body follows it', async (t) => {
  const r = await through(t, [slowHead(40, 50)]);
  t.equal(r.data.toString('latin1'), HONEST_HEAD + BODY.toString('latin1'));
  const pieces = Math.ceil(HONEST_HEAD.length / 40);
  t.ok(r.arrivals.length >= pieces, `at least ${pieces} arrivals (${r.arrivals.length})`);
  t.ok(r.arrivals[0]!.bytes <= 40, 'the first piece alone');
  const last = r.arrivals.at(-1)!.at;
  t.ok(last >= (pieces - 1) * 50 - 10, `the last piece ~${(pieces - 1) * 50} ms in (${last.toFixed(0)} ms)`);
  t.equal(r.wires[0]!.status, 200, 'the status is recorded though the head went out raw');
  t.equal(r.wires[0]!.bytesWritten, r.data.length);
});

t.test('composition: stages stack in order', async (t) => {
  await t.test('header-inject + drip + truncate-at', async (t) => {
    const r = await through(t, [headerInject([['X-Chaos-Mix', 'yes']]), drip(4, 50), truncateAt(10)]);
    const head = formatHead(200, 'OK', [...HEADERS, ['X-Chaos-Mix', 'yes']]);
    t.equal(r.data.toString('latin1'), `${head}abcdefghij`);
    t.same(r.arrivals.map((a) => a.bytes), [head.length + 4, 4, 2], 'dripped, and cut after 10 bytes');
    t.equal(r.end, 'fin', 'the cut closes');
    t.ok(r.arrivals.at(-1)!.at >= 90, 'on the drip schedule');
  });
  await t.test('the order matters: truncate-at before drip cuts the body first, drip sends what is left', async (t) => {
    const r = await through(t, [truncateAt(6), drip(4, 40)]);
    t.equal(r.data.toString('latin1'), `${HONEST_HEAD}abcdef`);
    t.same(r.arrivals.map((a) => a.bytes), [HONEST_HEAD.length + 4, 2]);
    t.equal(r.end, 'fin');
  });
  await t.test('delay-first-byte + close-early + reset-at', async (t) => {
    const r = await through(t, [delayFirstByte(80), closeEarly(), resetAt('mid-body', 3)]);
    t.equal(r.data.toString('latin1'), 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: D\r\nConnection: close\r\n\r\nabc');
    t.equal(r.end, 'reset');
    t.ok(r.arrivals[0]!.at >= 75);
  });
});

t.test('the registry: one file per slug, each builds a working fault', async (t) => {
  const { existsSync } = await import('node:fs');
  const dir = new URL('../../../services/chaos/faults/', import.meta.url);
  for (const slug of FAULT_SLUGS) {
    t.ok(existsSync(new URL(`${slug}.js`, dir)), `faults/${slug} exists`);
    const r = await through(t, faultsFor([slug], { ms: 10, interval: 10, chunk: 50, at: 5, bytes: 8 }));
    t.ok(r.data.length > 0 || r.end === 'reset', `${slug}: the client sees its effect`);
  }
});
