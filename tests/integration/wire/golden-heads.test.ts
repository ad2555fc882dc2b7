// Golden heads of the chaos endpoints whose heads are built through
// sendComplete(…, headersAfter): byte for byte (Date aside), so folding how a
// head is written cannot change what goes on the wire.
import t from 'tap';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startChaos, testConfig } from '../../helpers/servers.js';

/** [target, request headers, head with its Date value replaced, body prefix] */
const GOLDEN: readonly (readonly [string, Readonly<Record<string, string>>, string, string])[] = [
  ["/header-flood?n=3", {}, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 56\r\nDate: <date>\r\nX-Chaos-Category: headers\r\nX-Chaos-Endpoint: /header-flood\r\nX-Chaos-Header-Count: 3\r\nX-Chaos-Header-001: flood-001\r\nX-Chaos-Header-002: flood-002\r\nX-Chaos-Header-003: flood-003\r\n\r\n", "{\"endpoint\":\"/header-flood\",\"header_count\":3,\"max\":100}\n"],
  ["/etag?mode=weak-strong-conflict", {}, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 88\r\nDate: <date>\r\nX-Chaos-Category: headers\r\nX-Chaos-Endpoint: /etag\r\nX-Chaos-Etag-Mode: weak-strong-conflict\r\nETag: \"e103ea5708c6cdc7\"\r\nETag: W/\"e103ea5708c6cdc7\"\r\n\r\n", "{\"endpoint\":\"/etag\",\"value\":\"0e634f6447fe3375\",\"updated_at\":"],
  ["/etag?seed=abc", {"If-None-Match":"*"}, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 88\r\nDate: <date>\r\nX-Chaos-Category: headers\r\nX-Chaos-Endpoint: /etag\r\nX-Chaos-Etag-Mode: random-etag\r\nX-Chaos-Etag-Seed: abc\r\nETag: \"bffd6b463f03ada1\"\r\n\r\n", "{\"endpoint\":\"/etag\",\"value\":\"0e634f6447fe3375\",\"updated_at\":"],
  ["/range", {"Range":"bytes=0-9"}, "HTTP/1.1 206 Partial Content\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\nDate: <date>\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /range\r\nX-Chaos-Range-Mode: accepts-range-lies\r\nAccept-Ranges: bytes\r\nETag: \"fe1f0b2fff98d475\"\r\nContent-Range: bytes 0-9/4000\r\n\r\n", "000000500\n"],
  ["/range?mode=ignores-range", {"Range":"bytes=0-9,20-29"}, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 4000\r\nDate: <date>\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /range\r\nX-Chaos-Range-Mode: ignores-range\r\nAccept-Ranges: bytes\r\nETag: \"fe1f0b2fff98d475\"\r\n\r\n", "000000000\n000000010\n000000020\n000000030\n000000040\n000000050\n"],
];

t.test('golden heads: header-flood, etag, range', async (t) => {
  const { port } = await startChaos(t, { config: testConfig() });
  for (const [target, headers, head, bodyStart] of GOLDEN) {
    const r = await rawExchange(port, get(target, headers), { until: completeByLength, timeoutMs: 3000 });
    const parsed = parseHead(r.data);
    const text = r.data.toString('latin1', 0, parsed.headLength).replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>');
    t.equal(text, head, `${target} ${JSON.stringify(headers)}: the head`);
    t.equal(parsed.rest.toString('latin1').slice(0, bodyStart.length), bodyStart, `${target}: the body`);
  }
});
