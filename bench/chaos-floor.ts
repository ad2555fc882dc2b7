// The chaos transport alone, as a ceiling for the chaos host's req/s: the real
// Connection (parser, keep-alive, timers, back-pressure), Wire and turn
// batching of services/chaos/, with a host that answers every request with the
// same canned bytes straight after parsing, in one write of a prebuilt buffer
// as chaos replays a recorded response (Wire.respondRecorded): no routing,
// limiter, metrics, Date or X-Chaos lines. Under `make bench` the bytes are those the minimal
// node:net responder replays (MINIMAL_RESPONSE_B64), so the two differ only in
// the transport, and chaos ÷ this floor is what the pipeline costs. Run as a
// child process it reports its port like our services do.
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../shared/config/config.js';
import { ClientChecks } from '../shared/registry/rate-limit.js';
import { Connection, type ConnectionHost } from '../services/chaos/connection.js';
import { DEFAULT_LIMITS, type ParsedRequest, type RequestRejected } from '../services/chaos/parser.js';
import { CONNECTION_DEFAULTS, firstRequestWaitMs } from '../services/chaos/server.js';
import { listen } from './minimal-responder.js';

const BLANK_LINE = Buffer.from('\r\n\r\n', 'latin1');

interface Canned {
  readonly status: number;
  /** The whole response, and the same for a connection's last response (Connection: close, as chaos sends it); HEAD's heads alone. */
  readonly response: Buffer;
  readonly lastResponse: Buffer;
  readonly head: Buffer;
  readonly lastHead: Buffer;
}

function splitResponse(response: Buffer): Canned {
  const end = response.indexOf(BLANK_LINE);
  if (end === -1) throw new Error('canned response has no blank line');
  const lines = response.toString('latin1', 0, end + 2);
  const body = response.subarray(end + BLANK_LINE.length);
  const head = Buffer.from(`${lines}\r\n`, 'latin1');
  const lastHead = Buffer.from(`${lines}Connection: close\r\n\r\n`, 'latin1');
  return {
    status: Number(lines.slice(9, 12)),
    response: Buffer.concat([head, body]),
    lastResponse: Buffer.concat([lastHead, body]),
    head,
    lastHead,
  };
}

const DEFAULT_RESPONSE = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 1024\r\n\r\n${'x'.repeat(1024)}`, 'latin1');

export function createChaosFloor(response: Buffer = DEFAULT_RESPONSE): net.Server {
  const canned = splitResponse(response);
  const config = loadConfig({});
  const host: ConnectionHost = {
    config,
    limits: DEFAULT_LIMITS,
    ...CONNECTION_DEFAULTS,
    firstRequestTimeoutMs: firstRequestWaitMs(config.firstRequestTimeoutMs, CONNECTION_DEFAULTS.idleTimeoutMs),
    holdMs: config.holdMs,
    draining: false,
    parserOptions: undefined,
    request(connection: Connection, req: ParsedRequest, keepAlive: boolean): false {
      const headOnly = req.method === 'HEAD';
      const wire = connection.openWire(headOnly, keepAlive, undefined);
      if (keepAlive) wire.respondRecorded(canned.status, headOnly ? canned.head : canned.response, 'keep-alive');
      else wire.respondRecorded(canned.status, headOnly ? canned.lastHead : canned.lastResponse, 'close');
      return false;
    },
    rejected(connection: Connection, rejection: RequestRejected): void {
      const wire = connection.openWire(false, false, undefined);
      wire.respond(rejection.status, `HTTP/1.1 ${rejection.status} Rejected\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, undefined, 'close');
    },
    checksFor: (clientAddress: string) => new ClientChecks(config, 'chaos', clientAddress),
  };
  return net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    new Connection(socket, host);
  });
}

// As a forked child: listen on a free loopback port and send the same ready message as shared/runtime/run.ts.
if (process.send && process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const response = process.env.MINIMAL_RESPONSE_B64 ? Buffer.from(process.env.MINIMAL_RESPONSE_B64, 'base64') : DEFAULT_RESPONSE;
  const port = await listen(createChaosFloor(response), 0, '127.0.0.1');
  process.send({ type: 'ready', service: 'chaos-floor', port, url: `http://127.0.0.1:${port}` });
  process.on('disconnect', () => process.exit(0));
}
