// The baseline the chaos host is measured against: the least a node:net
// server can do per request. Every request (split naively on CRLFCRLF, no
// parsing, no bodies expected) gets the same canned response on a kept-alive
// connection: by default a 1024-byte 200; under `make bench` the exact bytes
// chaos /bytes sent once (MINIMAL_RESPONSE_B64), so the client's work is the
// same on both sides. Run as a child process it reports its port like our services do.
import net from 'node:net';
import { pathToFileURL } from 'node:url';

const BODY_BYTES = 1024;
const RESPONSE = process.env.MINIMAL_RESPONSE_B64
  ? Buffer.from(process.env.MINIMAL_RESPONSE_B64, 'base64')
  : Buffer.from(
      `HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${BODY_BYTES}\r\n\r\n${'x'.repeat(BODY_BYTES)}`,
      'latin1',
    );
const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');

export function createMinimalResponder(): net.Server {
  return net.createServer({ noDelay: true }, (socket) => {
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let answers = 0;
      let start = 0;
      for (;;) {
        const end = pending.indexOf(CRLFCRLF, start);
        if (end < 0) break;
        answers++;
        start = end + CRLFCRLF.length;
      }
      pending = pending.subarray(start);
      // Pipelined requests get their answers in one write.
      if (answers === 1) socket.write(RESPONSE);
      else if (answers > 1) socket.write(Buffer.concat(Array.from({ length: answers }, () => RESPONSE)));
    });
    socket.on('error', () => {
      /* the benchmark client hangs up at will */
    });
  });
}

export function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

// As a forked child: listen on a free loopback port and send the same ready message as shared/runtime/run.ts.
if (process.send && process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createMinimalResponder();
  const port = await listen(server, 0, '127.0.0.1');
  process.send({ type: 'ready', service: 'minimal', port, url: `http://127.0.0.1:${port}` });
  process.on('disconnect', () => process.exit(0));
}
