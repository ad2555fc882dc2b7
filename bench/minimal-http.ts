// The baseline the control and bots hosts are measured against: the least a
// node:http server can do per request. It looks the request's path up in a
// table of canned bodies and ends the response with one of them: no routing
// beyond that lookup, no parameters, no extra headers (node:http adds Date,
// Connection and Keep-Alive itself). Under `make bench` the table holds the
// very bodies and content types the compared endpoints sent once
// (MINIMAL_HTTP_ROUTES: JSON of path → { type, base64 }), so both sides put the
// same body bytes on the wire. Given `lines` too, it sends those header lines
// (what the compared endpoint sent but node:http's own Date, Connection and
// Keep-Alive): the floor of a node:http server that must send them, which
// node validates and writes line by line. Run as a child process it reports
// its port like our services do.
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { listen } from './minimal-responder.js';

export interface CannedBody {
  readonly type: string;
  readonly base64: string;
  /** Every header line to send, in order, instead of Content-Type and Content-Length alone. */
  readonly lines?: readonly (readonly [string, string])[];
}

interface Canned {
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

function cannedTable(routes: Record<string, CannedBody>): Map<string, Canned> {
  const table = new Map<string, Canned>();
  for (const [path, { type, base64, lines }] of Object.entries(routes)) {
    const body = Buffer.from(base64, 'base64');
    const headers = lines ? Object.fromEntries(lines) : { 'Content-Type': type, 'Content-Length': String(body.length) };
    table.set(path, { headers, body });
  }
  return table;
}

const DEFAULT_ROUTES: Record<string, CannedBody> = { '/': { type: 'application/octet-stream', base64: Buffer.alloc(1024, 'x').toString('base64') } };

export function createMinimalHttp(routes: Record<string, CannedBody> = DEFAULT_ROUTES): http.Server {
  const table = cannedTable(routes);
  return http.createServer((req, res) => {
    const canned = table.get(req.url ?? '');
    if (canned === undefined) {
      res.writeHead(404, { 'Content-Length': '0' });
      res.end();
      return;
    }
    res.writeHead(200, canned.headers);
    res.end(canned.body);
  });
}

// As a forked child: listen on a free loopback port and send the same ready message as shared/runtime/run.ts.
if (process.send && process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const routes = process.env.MINIMAL_HTTP_ROUTES ? (JSON.parse(process.env.MINIMAL_HTTP_ROUTES) as Record<string, CannedBody>) : DEFAULT_ROUTES;
  const server = createMinimalHttp(routes);
  const port = await listen(server, 0, '127.0.0.1');
  process.send({ type: 'ready', service: 'minimal-http', port, url: `http://127.0.0.1:${port}` });
  process.on('disconnect', () => process.exit(0));
}
