// Golden bytes for the endpoints written with the wire faults (issue 7 §5):
// the exact response of /slow, /drip, /truncate, /partial-stream and /random
// on a real socket (only the Date value is masked), recorded before they were
// rewritten as fault compositions, so the rewrite is proven byte-identical.
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
  /** Sizes of the separate arrivals, where the schedule is part of the behaviour. */
  readonly arrivals?: readonly number[];
}

const GOLDEN: readonly GoldenCase[] = [
  {request: "GET /slow?ms=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 52\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 30\r\n\r\n{\"endpoint\":\"/slow\",\"delayed_ms\":30,\"max_ms\":15000}\n"},
  {request: "HEAD /slow?ms=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 52\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 30\r\n\r\n"},
  {request: "GET /slow?ms=30 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 52\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 30\r\n\r\n{\"endpoint\":\"/slow\",\"delayed_ms\":30,\"max_ms\":15000}\n"},
  {request: "GET /slow?ms=30 HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 52\r\nDate: DATE\r\nConnection: keep-alive\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 30\r\n\r\n{\"endpoint\":\"/slow\",\"delayed_ms\":30,\"max_ms\":15000}\n"},
  {request: "GET /slow?ms=30 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 52\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 30\r\n\r\n{\"endpoint\":\"/slow\",\"delayed_ms\":30,\"max_ms\":15000}\n"},
  {request: "GET /slow?ms=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 51\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 0\r\n\r\n{\"endpoint\":\"/slow\",\"delayed_ms\":0,\"max_ms\":15000}\n"},
  {request: "HEAD /slow?ms=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 51\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 0\r\n\r\n"},
  {request: "GET /slow?ms=0 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 51\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 0\r\n\r\n{\"endpoint\":\"/slow\",\"delayed_ms\":0,\"max_ms\":15000}\n"},
  {request: "GET /slow?ms=0 HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 51\r\nDate: DATE\r\nConnection: keep-alive\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 0\r\n\r\n{\"endpoint\":\"/slow\",\"delayed_ms\":0,\"max_ms\":15000}\n"},
  {request: "GET /slow?ms=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 51\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow\r\nX-Chaos-Delayed-Ms: 0\r\n\r\n{\"endpoint\":\"/slow\",\"delayed_ms\":0,\"max_ms\":15000}\n"},
  {request: "GET /drip?bytes=25&chunk=10&interval=40 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 25\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 25\r\nX-Chaos-Drip-Interval-Ms: 40\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n*************************",arrivals: [256,10,5]},
  {request: "HEAD /drip?bytes=25&chunk=10&interval=40 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 25\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 25\r\nX-Chaos-Drip-Interval-Ms: 40\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n"},
  {request: "GET /drip?bytes=25&chunk=10&interval=40 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 25\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 25\r\nX-Chaos-Drip-Interval-Ms: 40\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n*************************",arrivals: [275,10,5]},
  {request: "GET /drip?bytes=25&chunk=10&interval=40 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 25\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 25\r\nX-Chaos-Drip-Interval-Ms: 40\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n*************************",arrivals: [275,10,5]},
  {request: "GET /drip?bytes=5&chunk=10&interval=40 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 5\r\nX-Chaos-Drip-Interval-Ms: 40\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n*****",arrivals: [249]},
  {request: "HEAD /drip?bytes=5&chunk=10&interval=40 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 5\r\nX-Chaos-Drip-Interval-Ms: 40\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n"},
  {request: "GET /drip?bytes=5&chunk=10&interval=40 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 5\r\nX-Chaos-Drip-Interval-Ms: 40\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n*****",arrivals: [268]},
  {request: "GET /drip?bytes=5&chunk=10&interval=40 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 5\r\nX-Chaos-Drip-Interval-Ms: 40\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n*****",arrivals: [268]},
  {request: "GET /drip?bytes=30&chunk=10&interval=10 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 30\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 30\r\nX-Chaos-Drip-Interval-Ms: 10\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n******************************"},
  {request: "HEAD /drip?bytes=30&chunk=10&interval=10 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 30\r\nDate: DATE\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 30\r\nX-Chaos-Drip-Interval-Ms: 10\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n"},
  {request: "GET /drip?bytes=30&chunk=10&interval=10 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 30\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 30\r\nX-Chaos-Drip-Interval-Ms: 10\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n******************************"},
  {request: "GET /drip?bytes=30&chunk=10&interval=10 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 30\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: latency\r\nX-Chaos-Endpoint: /drip\r\nX-Chaos-Drip-Bytes: 30\r\nX-Chaos-Drip-Interval-Ms: 10\r\nX-Chaos-Drip-Chunk: 10\r\n\r\n******************************"},
  {request: "GET /truncate?at=7 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 14\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /truncate\r\nX-Chaos-Truncated-At: 7\r\nX-Chaos-Promised-Bytes: 14\r\nX-Chaos-Actual-Bytes: 7\r\n\r\n0123456"},
  {request: "HEAD /truncate?at=7 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 14\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /truncate\r\nX-Chaos-Truncated-At: 7\r\nX-Chaos-Promised-Bytes: 14\r\nX-Chaos-Actual-Bytes: 7\r\n\r\n"},
  {request: "GET /truncate?at=7 HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 14\r\nDate: DATE\r\nConnection: keep-alive\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /truncate\r\nX-Chaos-Truncated-At: 7\r\nX-Chaos-Promised-Bytes: 14\r\nX-Chaos-Actual-Bytes: 7\r\n\r\n0123456"},
  {request: "GET /truncate?at=25 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 50\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /truncate\r\nX-Chaos-Truncated-At: 25\r\nX-Chaos-Promised-Bytes: 50\r\nX-Chaos-Actual-Bytes: 25\r\n\r\n0123456789012345678901234"},
  {request: "HEAD /truncate?at=25 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 50\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /truncate\r\nX-Chaos-Truncated-At: 25\r\nX-Chaos-Promised-Bytes: 50\r\nX-Chaos-Actual-Bytes: 25\r\n\r\n"},
  {request: "GET /truncate?at=25 HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 50\r\nDate: DATE\r\nConnection: keep-alive\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /truncate\r\nX-Chaos-Truncated-At: 25\r\nX-Chaos-Promised-Bytes: 50\r\nX-Chaos-Actual-Bytes: 25\r\n\r\n0123456789012345678901234"},
  {request: "GET /truncate?at=5000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",sha256: "8f2983041b378f3d182580b8176be467e9ef2231a6e0625267df1b6b3d1db760"},
  {request: "HEAD /truncate?at=5000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2000000\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /truncate\r\nX-Chaos-Clamped: at=1000000\r\nX-Chaos-Truncated-At: 1000000\r\nX-Chaos-Promised-Bytes: 2000000\r\nX-Chaos-Actual-Bytes: 1000000\r\n\r\n"},
  {request: "GET /truncate?at=5000000 HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",end: "fin",sha256: "1281f1d3ab9b0c7e20531b765df3e7dd02cf30cc0b00b101f2f461b2f84d1f29"},
  {request: "GET /partial-stream?bytes=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 30\r\n\r\n{\"endpoint\":\"/partial-stream\","},
  {request: "HEAD /partial-stream?bytes=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 30\r\n\r\n"},
  {request: "GET /partial-stream?bytes=30 HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: keep-alive\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 30\r\n\r\n{\"endpoint\":\"/partial-stream\","},
  {request: "GET /partial-stream?bytes=30 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 30\r\n\r\n{\"endpoint\":\"/partial-stream\","},
  {request: "GET /partial-stream?bytes=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 1\r\n\r\n{"},
  {request: "HEAD /partial-stream?bytes=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 1\r\n\r\n"},
  {request: "GET /partial-stream?bytes=1 HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: keep-alive\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 1\r\n\r\n{"},
  {request: "GET /partial-stream?bytes=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 1\r\n\r\n{"},
  {request: "GET /partial-stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 128\r\n\r\n{\"endpoint\":\"/partial-stream\",\"note\":\"the chaos host cuts this document short\",\"items\":[{\"id\":0,\"name\":\"item-00000\",\"value\":0},{"},
  {request: "HEAD /partial-stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 128\r\n\r\n"},
  {request: "GET /partial-stream HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: keep-alive\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 128\r\n\r\n{\"endpoint\":\"/partial-stream\",\"note\":\"the chaos host cuts this document short\",\"items\":[{\"id\":0,\"name\":\"item-00000\",\"value\":0},{"},
  {request: "GET /partial-stream HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: DATE\r\nConnection: close\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /partial-stream\r\nX-Chaos-Partial-Bytes: 128\r\n\r\n{\"endpoint\":\"/partial-stream\",\"note\":\"the chaos host cuts this document short\",\"items\":[{\"id\":0,\"name\":\"item-00000\",\"value\":0},{"},
  // /random: one seed per seeded pick (golden-0 /json, -1 agent-skills index, -3 openid, -4 /truncate (FIN),
  // -6 /status/304, -7 wrong-content-type, -8 mcp card, -10 cache-confused, -11 protected resource, -12 /range,
  // -14 semantic-drift, -15 /flaky, -22 auth-required, -25 rate-limit, -37 redirect-chain, -51 agent card,
  // -55 header-flood, -58 compression, -59 oauth server, -63 /etag), then HEAD, HTTP/1.0 and Connection: close.
  {request: "GET /random?seed=golden-0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "84521896a0bf7658fd47e963fb4562aa5768441ec5adb05ab3deb2791da872f5"},
  {request: "GET /random?seed=golden-1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "133de973c1281bccba3e0ae3b76be4f3d8db8f9df5496e2e76c7d4a745f8b0c7"},
  {request: "GET /random?seed=golden-3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "7184e12947c6de5236bd954737249772e19b1c1fd87ce208c197647b1fe7de03"},
  {request: "GET /random?seed=golden-4 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",sha256: "ad1b8fb3493af488493209c7ba49c983cafa0130818711561ad18870532c9681"},
  {request: "GET /random?seed=golden-6 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "55effc99a6f99953804015a33a9aa7b3b05c77f22c7e0c48fd2b66bd3966aae5"},
  {request: "GET /random?seed=golden-7 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "32b755bff9ec38c1ea403ce7aa3579377f272952244910310253c0c74b35dc73"},
  {request: "GET /random?seed=golden-8 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "c1f39a803b5a5fdc063eb4bb10360d3399584f18a8a874c30affb4fca5beba94"},
  {request: "GET /random?seed=golden-10 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "3aeb16575468e4bc2d36478b91c3ffa04340714a1ce292f90f91a98bda74fe02"},
  {request: "GET /random?seed=golden-11 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "2eebb1939029d9ae37f0fc5a2a1b9a7b299f098aabf5e069849cf4d55b677ec7"},
  {request: "GET /random?seed=golden-12 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "8a71eaa7f80efafc8355936e147fce5fc833b85516d4bf0b92d6798dc2ffdc41"},
  {request: "GET /random?seed=golden-14 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "219d4c07379870532d014cce412e015f1a7b9b65d2953d6d5cc25430f1478d6b"},
  {request: "GET /random?seed=golden-15 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "8ab75f5451157e45c60559638a3a0d244f95ab6c090ae32b1f5a3dd60d4f3882"},
  {request: "GET /random?seed=golden-22 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "b797a9ff5d5adb5c88976597fee6a009323cf4fb662812c56cb80f7b5da18d6c"},
  {request: "GET /random?seed=golden-25 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "df08e0c6f0fd090854d6f149f45e836d9574e87a4a36c8129dbddb9b588fdd79"},
  {request: "GET /random?seed=golden-37 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "76b1bb05c98274060a21891bd238d0a50dc0c74bc8cd193f9f26d8542fef1513"},
  {request: "GET /random?seed=golden-51 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "de3bd9dc63abb18ea8578ab4b65c712ce3156fff188ad4303a5a028220a970af"},
  {request: "GET /random?seed=golden-55 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "3bcd24a5e8e92b4f45c88ab9250e591677ee89dfbfe2f35fd8099d2ac26bbc7f"},
  {request: "GET /random?seed=golden-58 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "500a27b67226565fb8daf95e9f4350f1836c050ddd0a0945ad263a6a1e9b13a7"},
  {request: "GET /random?seed=golden-59 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "613f4c36f87f06b02fb3679ca7a314de5032be7447024ae3af6894032d04d2ba"},
  {request: "GET /random?seed=golden-63 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",sha256: "f77e6e7abff891f4dce1034314c6086ad7b14b9c86d97c5a87417dc3438f7c7b"},
  {request: "HEAD /random?seed=golden-0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",end: "stopped",bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 187\r\nDate: DATE\r\nX-Chaos-Category: payload\r\nX-Chaos-Endpoint: /json\r\nX-Chaos-Payload: json-chaos\r\nX-Chaos-Json-Mode: all\r\nX-Chaos-Random-From: /json\r\nX-Chaos-Random-Seed: golden-0\r\nX-Chaos-Random-Target: /json\r\n\r\n"},
  {request: "GET /random?seed=golden-1 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",end: "fin",sha256: "7b7495a1c9d450d7db7f67c530161474f2dcd46fa82329f2b09552f2f3702641"},
  {request: "GET /random?seed=golden-4 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",sha256: "7f2a1d6f9b044412fda79ea699496225531d8ee953b67011d22b2f5b2e349d1c"},
  {request: "GET /random?seed=golden-0 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",end: "fin",sha256: "7701f82a228d79a15a6a5bad0ecc5756abb5537e22e656eb6897a821c1cbae50"},
];

function masked(data: Buffer): string {
  return data.toString('latin1').replace(/\r\nDate: [^\r\n]*/g, '\r\nDate: DATE');
}

/** Complete when the framing is: a head and its Content-Length body (no Content-Length: head only). */
function framedComplete(headOnly: boolean) {
  return (data: Buffer): boolean => {
    const end = data.indexOf('\r\n\r\n');
    if (end === -1) return false;
    const head = data.toString('latin1', 0, end);
    const m = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (headOnly || (m === null && /^HTTP\/1\.1 (204|304) /.test(head))) return true;
    return m !== null && data.length >= end + 4 + Number(m[1]);
  };
}

async function capture(port: number, request: string): Promise<RawResult> {
  const headOnly = request.startsWith('HEAD ');
  const closes = /Connection: close|HTTP\/1\.0\r\n(?![\s\S]*keep-alive)/.test(request);
  return rawExchange(port, request, { until: closes ? undefined : framedComplete(headOnly), timeoutMs: 4000 });
}

t.test('golden bytes of the fault-built endpoints', async (t) => {
  const { port } = await startChaos(t);
  for (const c of GOLDEN) {
    await t.test(c.request.split('\r\n')[0] as string, async (t) => {
      const r = await capture(port, c.request);
      const text = masked(r.data);
      if (c.bytes !== undefined) t.equal(text, c.bytes, 'exact bytes');
      if (c.sha256 !== undefined) t.equal(createHash('sha256').update(text, 'latin1').digest('hex'), c.sha256, 'exact bytes (digest)');
      t.equal(r.end, c.end, 'ends the same way');
      if (c.arrivals) t.same(r.arrivals.map((a) => a.bytes), c.arrivals, 'the same pieces on the same schedule');
    });
  }
});
