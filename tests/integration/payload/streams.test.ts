// Issue 13, payload streams and formats on real sockets: /sse, /ndjson, /xml
// and /charset send the exact bytes of each documented lie; their control
// twins are checked against the formats' own rules (the WHATWG event-stream
// parser, JSON.parse per line, a minimal XML well-formedness check, a fatal
// UTF-8 decoder); the heartbeat stream ends within its bound.
import t from 'tap';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse, type RawResult } from '../../helpers/raw.js';
import { dechunk, parseEventStream } from '../../helpers/event-stream.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

// --- format checkers, written from the specifications, not from the code ---

/** A minimal XML 1.0 well-formedness check: the encoding declaration, entities, tag nesting, one root. */
function xmlProblems(bytes: Buffer): string[] {
  const problems = new Set<string>();
  const declared = /^<\?xml version="1\.0" encoding="([^"]+)"\?>/.exec(bytes.toString('latin1'))?.[1];
  if (declared === undefined) problems.add('declaration');
  else if (declared.toUpperCase() !== 'UTF-8' || bytes[0] === 0xef) problems.add('encoding');
  let text = '';
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    problems.add('encoding');
  }
  const body = text.replace(/^<\?xml[^?]*\?>/, '');
  const stack: string[] = [];
  let roots = 0;
  let last = 0;
  const tag = /<(\/?)([A-Za-z_][\w.-]*)(?:\s+[\w.-]+="[^"<]*")*\s*(\/?)>/g;
  const checkText = (piece: string): void => {
    if (stack.length === 0 && piece.trim() !== '') problems.add('text-outside-root');
    if (/[<>]/.test(piece)) problems.add('markup');
    for (const [, name] of piece.matchAll(/&([^;]*);/g)) {
      if (!/^(lt|gt|amp|apos|quot|#[0-9]+|#x[0-9A-Fa-f]+)$/.test(name as string)) problems.add('entity');
    }
    if (/&(?![^;\s]*;)/.test(piece)) problems.add('entity');
  };
  for (const m of body.matchAll(tag)) {
    checkText(body.slice(last, m.index));
    last = (m.index as number) + m[0].length;
    const [, closing, name, selfClosing] = m as unknown as [string, string, string, string];
    if (closing) {
      if (stack.pop() !== name) problems.add('unclosed');
      if (stack.length === 0) roots++;
    } else if (selfClosing) {
      if (stack.length === 0) roots++;
    } else stack.push(name);
  }
  checkText(body.slice(last));
  if (stack.length > 0) problems.add('unclosed');
  // A tag left open already makes the root count meaningless.
  if (roots !== 1 && !problems.has('unclosed')) problems.add('roots');
  return [...problems].sort();
}

const decodeFatal = (bytes: Buffer): string => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);

// --- the expected streams, spelled out ---

const fields = (id: number, n: number): string => `id: ${id}\nevent: tick\ndata: {"n":${n}}\n`;
const VALID_SSE = `retry: 3000\n\n${[1, 2, 3, 4, 5].map((i) => `${fields(i, i)}\n`).join('')}`;
const SSE_BODIES: Readonly<Record<string, string>> = {
  'no-blank-lines': `${[1, 2, 3, 4, 5].map((i) => fields(i, i)).join('')}\n`,
  'invalid-retry': `retry: soon\nretry: -1\nretry: 2.5e3\n\n${[1, 2, 3, 4, 5].map((i) => `${fields(i, i)}\n`).join('')}`,
  'id-backwards': `retry: 3000\n\n${[1, 2, 3, 4, 5].map((i) => `${fields(6 - i, i)}\n`).join('')}`,
  'cut-mid-event': `retry: 3000\n\n${fields(1, 1)}\n${fields(2, 2)}\nid: 3\nevent: tick\ndata: {"n":`,
  'wrong-content-type': VALID_SSE,
};
const RECORDS = [1, 2, 3, 4, 5].map((i) => `{"id":${i},"name":"record-${i}","ok":true}`);
const TEXT = 'Café crème, naïve façade: 3 € · 日本語\n';

t.test('chaos host', async (t) => {
  const { port } = await startChaos(t);
  const fetchLength = async (path: string): Promise<{ head: ParsedResponse; body: Buffer; raw: RawResult }> => {
    const raw = await rawExchange(port, get(path), { until: completeByLength });
    const head = parseHead(raw.data);
    return { head, body: head.rest, raw };
  };
  const fetchStream = async (path: string, timeoutMs = 3000) => {
    const raw = await rawExchange(port, get(path), { until: (d) => d.includes('\r\n0\r\n\r\n'), timeoutMs });
    const head = parseHead(raw.data);
    return { head, raw, ...dechunk(head.rest) };
  };

  t.test('/sse: each mode sends the exact stream, chunked, and the WHATWG parser sees the lie', async (t) => {
    for (const [mode, expected] of Object.entries(SSE_BODIES)) {
      const { head, raw, body, complete } = await fetchStream(`/sse?mode=${mode}`);
      t.equal(head.status, 200, mode);
      t.equal(head.header('x-chaos-sse-mode'), mode);
      t.equal(head.header('transfer-encoding'), 'chunked');
      t.equal(head.header('content-length'), undefined);
      t.equal(head.header('cache-control'), 'no-cache');
      t.equal(head.header('content-type'), mode === 'wrong-content-type' ? 'text/plain; charset=utf-8' : 'text/event-stream; charset=utf-8');
      t.equal(body.toString('utf8'), expected, `${mode}: exact stream`);
      if (mode === 'cut-mid-event') {
        t.notOk(complete, 'no last chunk');
        t.equal(raw.end, 'fin', 'the connection closes mid-event');
      } else t.ok(complete, `${mode}: ends with the last chunk`);
    }
    const merged = parseEventStream(SSE_BODIES['no-blank-lines'] as string);
    t.equal(merged.events.length, 1, 'no-blank-lines: five events collapse into one');
    t.equal(merged.events[0]?.lastEventId, '5');
    t.equal(merged.events[0]?.data.split('\n').length, 5);
    const retry = parseEventStream(SSE_BODIES['invalid-retry'] as string);
    t.equal(retry.retry, undefined, 'invalid-retry: every retry line is ignored');
    t.equal(retry.events.length, 5);
    t.same(parseEventStream(SSE_BODIES['id-backwards'] as string).events.map((e) => e.lastEventId), ['5', '4', '3', '2', '1']);
    t.same(parseEventStream(SSE_BODIES['cut-mid-event'] as string).events.map((e) => e.data), ['{"n":1}', '{"n":2}'], 'the cut event is never dispatched');
  });

  t.test('/sse heartbeat-only: comments every interval, no event, the last chunk at ms', async (t) => {
    const { head, raw, body, complete } = await fetchStream('/sse?mode=heartbeat-only&interval=100&ms=500');
    t.same([head.header('x-chaos-sse-mode'), head.header('x-chaos-sse-interval-ms'), head.header('x-chaos-sse-ms')], ['heartbeat-only', '100', '500']);
    t.equal(body.toString(), ': heartbeat\n\n'.repeat(5), 'ceil(ms/interval) comment lines');
    t.ok(complete);
    t.same(parseEventStream(body.toString()).events, [], 'nothing is ever dispatched');
    t.ok(raw.elapsedMs >= 480 && raw.elapsedMs < 2000, `ends at ms (${raw.elapsedMs.toFixed(0)} ms)`);
    t.ok(raw.arrivals.length >= 4, `the comments arrive apart (${raw.arrivals.length} arrivals)`);
  });

  t.test('/sse rejects bad parameters with a 400 and clamps interval', async (t) => {
    for (const query of ['mode=lies', 'interval=abc', 'ms=soon']) {
      const { head } = await fetchLength(`/sse?${query}`);
      t.equal(head.status, 400, query);
      t.same(head.headerLines.filter(([n]) => /^x-chaos-/i.test(n)), [], `${query}: no X-Chaos-* on a real error`);
    }
    const { head } = await fetchStream('/sse?mode=heartbeat-only&interval=1&ms=20');
    t.equal(head.header('x-chaos-clamped'), 'interval=10');
  });

  t.test('/ndjson: exact bytes per mode', async (t) => {
    const expected: Readonly<Record<string, string>> = {
      'broken-line': RECORDS.map((r, i) => `${i === 2 ? r.slice(0, -1) : r}\n`).join(''),
      'no-final-newline': RECORDS.join('\n'),
      'crlf-mixed': RECORDS.map((r, i) => `${r}${i % 2 === 1 ? '\r\n' : '\n'}`).join(''),
    };
    for (const [mode, body] of Object.entries(expected)) {
      const got = await fetchLength(`/ndjson?mode=${mode}`);
      t.equal(got.head.header('content-type'), 'application/x-ndjson', mode);
      t.equal(got.head.header('x-chaos-ndjson-mode'), mode);
      t.equal(got.body.toString(), body, `${mode}: exact bytes`);
    }
    t.equal((await fetchLength('/ndjson')).head.header('x-chaos-ndjson-mode'), 'broken-line', 'the default');
    t.throws(() => JSON.parse((expected['broken-line'] as string).split('\n')[2] as string), SyntaxError, 'the third line is not JSON');
    t.equal((await fetchLength('/ndjson?mode=nope')).head.status, 400);
  });

  t.test('/xml: each mode breaks exactly one well-formedness rule', async (t) => {
    const problem: Readonly<Record<string, string>> = {
      'unclosed-tag': 'unclosed', 'undeclared-entity': 'entity', 'two-roots': 'roots', 'wrong-encoding': 'encoding',
    };
    for (const [mode, code] of Object.entries(problem)) {
      const { head, body } = await fetchLength(`/xml?mode=${mode}`);
      t.equal(head.header('content-type'), 'application/xml', mode);
      t.equal(head.header('x-chaos-xml-mode'), mode);
      t.same(xmlProblems(body), [code], `${mode}: ${code}`);
    }
    const twoRoots = (await fetchLength('/xml?mode=two-roots')).body.toString();
    t.equal(twoRoots.split('<catalog source="/xml">').length, 3, 'two <catalog> roots');
    t.match((await fetchLength('/xml?mode=wrong-encoding')).body.toString('latin1'), /^<\?xml version="1\.0" encoding="UTF-16"\?>\n<catalog/, 'declared UTF-16, no BOM');
    t.match((await fetchLength('/xml?mode=undeclared-entity')).body.toString(), /naïve&nbsp;façade/);
    t.equal((await fetchLength('/xml?mode=nope')).head.status, 400);
  });

  t.test('/charset: the declared charset contradicts the bytes', async (t) => {
    const mismatch = await fetchLength('/charset');
    t.equal(mismatch.head.header('x-chaos-charset-mode'), 'header-mismatch', 'the default');
    t.equal(mismatch.head.header('content-type'), 'text/plain; charset=iso-8859-1');
    t.equal(decodeFatal(mismatch.body), TEXT, 'the bytes are UTF-8');
    t.match(mismatch.body.toString('latin1'), /^CafÃ© crÃ¨me/, 'read as declared, it is mojibake');

    const bom = await fetchLength('/charset?mode=bom-mismatch');
    t.equal(bom.head.header('content-type'), 'text/plain; charset=utf-8');
    t.same([...bom.body.subarray(0, 2)], [0xff, 0xfe], 'a UTF-16LE BOM');
    t.equal(bom.body.subarray(2).toString('utf16le'), TEXT, 'and UTF-16LE bytes after it');
    t.throws(() => decodeFatal(bom.body), TypeError, 'not UTF-8 as declared');

    const invalid = await fetchLength('/charset?mode=invalid-utf8');
    t.equal(invalid.head.header('content-type'), 'text/plain; charset=utf-8');
    t.same(invalid.body, Buffer.concat([
      Buffer.from('Café crème, naïve façade: '), Buffer.from([0x80, 0xc0, 0xaf, 0xe2, 0x82, 0xff, 0xed, 0xa0, 0x80]), Buffer.from('3 € · 日本語\n'),
    ]));
    t.throws(() => decodeFatal(invalid.body), TypeError);
    t.equal((await fetchLength('/charset?mode=utf-7')).head.status, 400);
  });
});

t.test('/sse heartbeats never outlast MAX_RESPONSE_MS', async (t) => {
  const { port } = await startChaos(t, { config: testConfig({ MAX_RESPONSE_MS: '1000' }) });
  const raw = await rawExchange(port, get('/sse?mode=heartbeat-only&interval=300&ms=60000'), { until: (d) => d.includes('\r\n0\r\n\r\n'), timeoutMs: 3000 });
  const head = parseHead(raw.data);
  t.equal(head.header('x-chaos-clamped'), 'ms=1000');
  t.equal(head.header('x-chaos-sse-ms'), '1000');
  t.equal(dechunk(head.rest).body.toString(), ': heartbeat\n\n'.repeat(4));
  t.equal(raw.end, 'stopped', 'the last chunk came');
  t.ok(raw.elapsedMs >= 980 && raw.elapsedMs < 1800, `ended at the bound (${raw.elapsedMs.toFixed(0)} ms)`);
});

t.test('control twins', async (t) => {
  const { port } = await startHttp(t, 'control');
  const fetchTwin = async (path: string) => {
    const raw = await rawExchange(port, get(path), { until: completeByLength });
    const head = parseHead(raw.data);
    t.equal(head.header('content-length'), String(head.rest.length), `${path}: framed by an accurate Content-Length`);
    return { head, body: head.rest };
  };

  t.test('/sse: a valid event stream, ids increasing, every event terminated, ended cleanly', async (t) => {
    for (const mode of ['no-blank-lines', 'cut-mid-event', 'heartbeat-only']) {
      const { head, body } = await fetchTwin(`/sse?mode=${mode}`);
      t.equal(head.header('content-type'), 'text/event-stream; charset=utf-8');
      t.equal(head.header('cache-control'), 'no-cache');
      const text = decodeFatal(body);
      t.equal(text, VALID_SSE);
      t.ok(text.endsWith('\n\n'), 'the last event is terminated');
      const { events, retry } = parseEventStream(text);
      t.equal(retry, 3000);
      t.same(events.map((e) => e.lastEventId), ['1', '2', '3', '4', '5']);
      t.same(events.map((e) => JSON.parse(e.data) as unknown), [1, 2, 3, 4, 5].map((n) => ({ n })));
      t.ok(events.every((e) => e.type === 'tick'));
    }
    t.equal((await fetchTwin('/sse?mode=lies')).head.status, 400, 'the same parameters as the chaos host');
  });

  t.test('/ndjson: every line is one JSON text ending in LF', async (t) => {
    const { head, body } = await fetchTwin('/ndjson?mode=crlf-mixed');
    t.equal(head.header('content-type'), 'application/x-ndjson');
    const text = body.toString();
    t.ok(text.endsWith('\n') && !text.includes('\r'));
    const lines = text.slice(0, -1).split('\n');
    t.same(lines.map((l) => JSON.parse(l) as unknown), [1, 2, 3, 4, 5].map((id) => ({ id, name: `record-${id}`, ok: true })));
  });

  t.test('/xml: well-formed, declared UTF-8 and is', async (t) => {
    for (const mode of ['unclosed-tag', 'wrong-encoding']) {
      const { head, body } = await fetchTwin(`/xml?mode=${mode}`);
      t.equal(head.header('content-type'), 'application/xml');
      t.same(xmlProblems(body), [], 'no problem found');
      t.match(body.toString(), /<item id="2">naïve façade<\/item>/);
    }
  });

  t.test('/charset: declared utf-8, valid UTF-8, no BOM', async (t) => {
    const { head, body } = await fetchTwin('/charset?mode=bom-mismatch');
    t.equal(head.header('content-type'), 'text/plain; charset=utf-8');
    t.not(body[0], 0xef, 'no BOM');
    t.equal(decodeFatal(body), TEXT);
  });
});
