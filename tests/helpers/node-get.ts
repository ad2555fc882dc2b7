// A GET through node:http, which refuses what is not well-formed HTTP/1.1:
// the twins must pass it, and some lies must not.
import http from 'node:http';

export interface NodeAnswer {
  readonly status: number;
  readonly statusMessage: string;
  readonly headers: http.IncomingHttpHeaders;
  /** Header names and values as received, in order. */
  readonly rawHeaders: readonly string[];
  readonly body: string;
  /** From the request to the end of the body. */
  readonly ms: number;
}

export function nodeGet(port: number, path: string): Promise<NodeAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks).toString('latin1'),
          ms: performance.now() - started,
        }),
      );
    });
    req.on('error', reject);
  });
}
