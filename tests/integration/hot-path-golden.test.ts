// Golden bytes of the hot-path responses (hot-path review, item 2): /status/{code}
// (every body framing, interim 1xx, 101, clamping), /bytes, /weighted-status,
// /flaky and a few sendComplete endpoints heavy in X-Chaos-* lines, with HEAD,
// HTTP/1.0 and Connection: close, recorded before the head was built from
// precomputed pieces and written with its body in one write. Only the Date
// value is masked. Where it is pinned, `arrivals` shows the head and body
// left together (one write, one arrival on loopback).
import { createHash } from 'node:crypto';
import t from 'tap';
import { rawExchange, type RawResult } from '../helpers/raw.js';
import { startChaos } from '../helpers/servers.js';

interface GoldenCase {
  readonly request: string;
  /** The whole response, Date value masked as DATE; or its SHA-256 (hex) when long. */
  readonly bytes?: string;
  readonly sha256?: string;
  readonly end: 'fin' | 'reset' | 'stopped';
  /** Sizes of the separate arrivals, where one write per response is part of what is pinned. */
  readonly arrivals?: readonly number[];
}

const GOLDEN: readonly GoldenCase[] = [
  {request: "GET /status/200 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 57\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 200\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":200,\"reason\":\"OK\"}\n",arrivals: [246]},
  {request: "HEAD /status/200 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 57\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 200\r\n\r\n",arrivals: [189]},
  {request: "GET /status/200 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 57\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 200\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":200,\"reason\":\"OK\"}\n",arrivals: [265]},
  {request: "GET /status/200 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 57\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 200\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":200,\"reason\":\"OK\"}\n",arrivals: [265]},
  {request: "GET /status/200 HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 57\r\nDate: DATE\r\nConnection: keep-alive\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 200\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":200,\"reason\":\"OK\"}\n",arrivals: [270]},
  {request: "GET /status/204 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 204 No Content\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 204\r\n\r\n",arrivals: [145]},
  {request: "HEAD /status/204 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 204 No Content\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 204\r\n\r\n",arrivals: [145]},
  {request: "GET /status/205 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 205 Reset Content\r\nContent-Length: 0\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 205\r\n\r\n",arrivals: [167]},
  {request: "GET /status/304 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 304 Not Modified\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 304\r\n\r\n",arrivals: [147]},
  {request: "GET /status/418 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 418 I'm a teapot\r\nContent-Type: application/json\r\nContent-Length: 67\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 418\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":418,\"reason\":\"I'm a teapot\"}\n",arrivals: [266]},
  {request: "GET /status/503 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 74\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 503\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":503,\"reason\":\"Service Unavailable\"}\n",arrivals: [280]},
  {request: "GET /status/599 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 599 Unknown\r\nContent-Type: application/json\r\nContent-Length: 62\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 599\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":599,\"reason\":\"Unknown\"}\n",arrivals: [256]},
  {request: "GET /status/103 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 103 Early Hints\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 103\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 129\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 103\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":200,\"reason\":\"OK\",\"interim_status\":103,\"interim_reason\":\"Early Hints\",\"interim_sent\":true}\n",arrivals: [428]},
  {request: "GET /status/103 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 130\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 103\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":200,\"reason\":\"OK\",\"interim_status\":103,\"interim_reason\":\"Early Hints\",\"interim_sent\":false}\n",arrivals: [339]},
  {request: "HEAD /status/100 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 100 Continue\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 100\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 126\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 100\r\n\r\n",arrivals: [296]},
  {request: "GET /status/101 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 197\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 400\r\n\r\n{\"endpoint\":\"/status/{code}\",\"error\":\"protocol_switching_status\",\"requested\":101,\"reason\":\"101 Switching Protocols would switch the connection to another protocol; this endpoint does not send it\"}\n",arrivals: [396]},
  {request: "GET /status/99999 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 599 Unknown\r\nContent-Type: application/json\r\nContent-Length: 62\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Clamped: code=599\r\nX-Chaos-Status: 599\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":599,\"reason\":\"Unknown\"}\n",arrivals: [283]},
  {request: "GET /status/5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 100 Continue\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Status: 100\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 126\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /status/{code}\r\nX-Chaos-Clamped: code=100\r\nX-Chaos-Status: 100\r\n\r\n{\"endpoint\":\"/status/{code}\",\"status\":200,\"reason\":\"OK\",\"interim_status\":100,\"interim_reason\":\"Continue\",\"interim_sent\":true}\n",arrivals: [449]},
  {request: "GET /status/204 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /status/200 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nHEAD /status/418 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /status/404 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "f2c989ad0415c9e98c8915c8c56275420b9b5f16536650d1673713558ef3cbf0"},
  {request: "GET /bytes?n=1024&mode=wrong-content-type HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "a8d88cf95aff1acc4f715c29222ff093ac9dee8eabf78f70d4ef52f5b38a8c7c",arrivals: [1302]},
  {request: "HEAD /bytes?n=1024&mode=wrong-content-type HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1024\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /bytes\r\nX-Chaos-Bytes-Mode: wrong-content-type\r\nX-Chaos-Bytes-Seed: 42\r\nX-Chaos-Claimed-Length: 1024\r\nX-Chaos-Actual-Bytes: 1024\r\n\r\n",arrivals: [278]},
  {request: "GET /bytes?n=1024&mode=wrong-content-type HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",sha256: "e7d1929f505809329b76db69a6734ab2bf5720ad9c19f582638b9c03a5b4f04a",arrivals: [1321]},
  {request: "GET /bytes?n=16&mode=wrong-content-type&seed=a%20b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 16\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /bytes\r\nX-Chaos-Bytes-Mode: wrong-content-type\r\nX-Chaos-Bytes-Seed: a%20b\r\nX-Chaos-Claimed-Length: 16\r\nX-Chaos-Actual-Bytes: 16\r\n\r\n\u0014Çè5È!?n\u0004sjM+",arrivals: [291]},
  {request: "GET /bytes?n=20000&mode=wrong-content-type&seed=big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "dc0d640a495e5ec5ed44eecf071eabbdb45e30267a7a33a00d327c326714b3cd"},
  {request: "GET /bytes?n=10&mode=content-length-undershoot&seed=u HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /bytes\r\nX-Chaos-Bytes-Mode: content-length-undershoot\r\nX-Chaos-Bytes-Seed: u\r\nX-Chaos-Claimed-Length: 5\r\nX-Chaos-Actual-Bytes: 10\r\n\r\n>Ñ-ilõÅIBª",arrivals: [301]},
  {request: "GET /weighted-status?codes=200:0.9,500:0.1&seed=a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 108\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /weighted-status\r\nX-Chaos-Status: 200\r\nX-Chaos-Weighted-Codes: 200:0.9,500:0.1\r\nX-Chaos-Weighted-Seed: a\r\n\r\n{\"endpoint\":\"/weighted-status\",\"drawn\":200,\"status\":200,\"reason\":\"OK\",\"codes\":\"200:0.9,500:0.1\",\"seed\":\"a\"}\n",arrivals: [367]},
  {request: "GET /weighted-status?codes=204:1&seed=b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 204 No Content\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /weighted-status\r\nX-Chaos-Status: 204\r\nX-Chaos-Weighted-Codes: 204:1\r\nX-Chaos-Weighted-Seed: b\r\n\r\n",arrivals: [204]},
  {request: "GET /weighted-status?codes=102:1&seed=c HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 102 Processing\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /weighted-status\r\nX-Chaos-Status: 102\r\nX-Chaos-Weighted-Codes: 102:1\r\nX-Chaos-Weighted-Seed: c\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 118\r\nDate: DATE\r\nX-Chaos-Category: status\r\nX-Chaos-Endpoint: /weighted-status\r\nX-Chaos-Status: 102\r\nX-Chaos-Weighted-Codes: 102:1\r\nX-Chaos-Weighted-Seed: c\r\n\r\n{\"endpoint\":\"/weighted-status\",\"drawn\":102,\"status\":200,\"reason\":\"OK\",\"codes\":\"102:1\",\"seed\":\"c\",\"interim_sent\":true}\n",arrivals: [534]},
  {request: "GET /flaky?p=0&seed=s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 91\r\nDate: DATE\r\nX-Chaos-Category: fault-injection\r\nX-Chaos-Endpoint: /flaky\r\nX-Chaos-Flaky-Failed: false\r\nX-Chaos-Flaky-Probability: 0\r\nX-Chaos-Flaky-Seed: s\r\n\r\n{\"endpoint\":\"/flaky\",\"failed\":false,\"status\":200,\"reason\":\"OK\",\"probability\":0,\"seed\":\"s\"}\n",arrivals: [342]},
  {request: "GET /flaky?p=1&status=503&seed=s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 107\r\nDate: DATE\r\nX-Chaos-Category: fault-injection\r\nX-Chaos-Endpoint: /flaky\r\nX-Chaos-Flaky-Failed: true\r\nX-Chaos-Flaky-Probability: 1\r\nX-Chaos-Flaky-Seed: s\r\n\r\n{\"endpoint\":\"/flaky\",\"failed\":true,\"status\":503,\"reason\":\"Service Unavailable\",\"probability\":1,\"seed\":\"s\"}\n",arrivals: [375]},
  {request: "GET /flaky?p=1&status=304&seed=s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 304 Not Modified\r\nDate: DATE\r\nX-Chaos-Category: fault-injection\r\nX-Chaos-Endpoint: /flaky\r\nX-Chaos-Flaky-Failed: true\r\nX-Chaos-Flaky-Probability: 1\r\nX-Chaos-Flaky-Seed: s\r\n\r\n",arrivals: [208]},
  {request: "GET /flaky?p=1&status=100&seed=s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 117\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: fault-injection\r\nX-Chaos-Endpoint: /flaky\r\nX-Chaos-Flaky-Failed: true\r\nX-Chaos-Flaky-Probability: 1\r\nX-Chaos-Flaky-Seed: s\r\n\r\n{\"endpoint\":\"/flaky\",\"failed\":true,\"status\":100,\"reason\":\"Continue\",\"probability\":1,\"seed\":\"s\",\"interim_sent\":false}\n",arrivals: [387]},
  {request: "GET /json?seed=g HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 187\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /json\r\nX-Chaos-Payload: json-chaos\r\nX-Chaos-Json-Mode: all\r\n\r\n{\"endpoint\":\"/json\",\"mode\":\"all\",\"valid\":false,\"defects\":[\"unquoted-key\",\"trailing-comma\",\"missing-brace\"],items:[{\"id\":1,\"name\":\"alpha\"},{\"id\":2,\"name\":\"beta\"},{\"id\":3,\"name\":\"gamma\"},]\n",arrivals: [401]},
  {request: "GET /pagination?page=2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "ba752528729cb35280b26ae4a89b1e2240266132446d4ab5ff909e39bcdead7f",arrivals: [1334]},
  {request: "GET /rate-limit HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: 117\r\nDate: DATE\r\nX-Chaos-Category: rate-limiting\r\nX-Chaos-Endpoint: /rate-limit\r\nX-Chaos-Rate-Limit-Lied: false\r\nRetry-After: 60\r\nX-RateLimit-Limit: 60\r\nX-RateLimit-Remaining: 0\r\nX-RateLimit-Reset: 60\r\n\r\n{\"endpoint\":\"/rate-limit\",\"retry_after\":60,\"retry_after_header\":60,\"lied\":false,\"limit\":60,\"remaining\":0,\"reset\":60}\n",arrivals: [426]},
  {request: "GET /redirect-chain?n=3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 302 Found\r\nContent-Type: application/json\r\nContent-Length: 83\r\nDate: DATE\r\nX-Chaos-Category: redirects\r\nX-Chaos-Endpoint: /redirect-chain\r\nX-Chaos-Redirect-Chain: redirecting\r\nX-Chaos-Redirect-Remaining: 3\r\nLocation: /redirect-chain?n=2\r\n\r\n{\"endpoint\":\"/redirect-chain\",\"hops_remaining\":3,\"location\":\"/redirect-chain?n=2\"}\n",arrivals: [357]},
  {request: "HEAD /.well-known/chaos HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1212\r\nDate: DATE\r\nX-Chaos-Category: discovery\r\nX-Chaos-Endpoint: /.well-known/chaos\r\nX-Chaos-Discovery-Mode: semantic\r\nX-Chaos-Drift-Schema: openid-configuration\r\nAccess-Control-Allow-Origin: *\r\n\r\n",arrivals: [287]},
];

function masked(data: Buffer): string {
  return data.toString('latin1').replace(/\r\nDate: [^\r\n]*/g, '\r\nDate: DATE');
}

/** Complete when every response is framed: a head, then its Content-Length body (head only for HEAD, 1xx, 204, 304). */
function framedComplete(headOnly: readonly boolean[]) {
  return (data: Buffer): boolean => {
    let at = 0;
    let i = 0;
    while (i < headOnly.length) {
      const end = data.indexOf('\r\n\r\n', at);
      if (end === -1) return false;
      const head = data.toString('latin1', at, end);
      at = end + 4;
      if (/^HTTP\/1\.1 1\d\d /.test(head)) continue; // an interim head: the final one follows
      const m = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!headOnly[i] && m !== null) at += Number(m[1]);
      if (at > data.length) return false;
      i++;
    }
    return true;
  };
}

async function capture(port: number, request: string): Promise<RawResult> {
  const methods = [...request.matchAll(/(?:^|\r\n\r\n)([A-Z]+) /g)].map((m) => m[1]);
  const closes = /Connection: close|HTTP\/1\.0\r\n(?![\s\S]*keep-alive)/.test(request);
  return rawExchange(port, request, { until: closes ? undefined : framedComplete(methods.map((m) => m === 'HEAD')), timeoutMs: 4000 });
}

t.test('golden bytes of the hot-path responses', async (t) => {
  const { port } = await startChaos(t);
  for (const c of GOLDEN) {
    await t.test(c.request.replace(/\r\n[\s\S]*/, '') + (c.request.includes('Connection:') ? ' (Connection)' : ''), async (t) => {
      const r = await capture(port, c.request);
      const text = masked(r.data);
      if (c.bytes !== undefined) t.equal(text, c.bytes, 'exact bytes');
      if (c.sha256 !== undefined) t.equal(createHash('sha256').update(text, 'latin1').digest('hex'), c.sha256, 'exact bytes (digest)');
      t.equal(r.end, c.end, 'ends the same way');
      if (c.arrivals) t.same(r.arrivals.map((a) => a.bytes), c.arrivals, 'one write per response');
    });
  }
});
