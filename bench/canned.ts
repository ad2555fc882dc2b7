// What a node:http baseline needs to put the same bytes on the wire as the
// host it is compared with: one response of a path, with its header lines
// (bench/minimal-http.ts replays them). Shared by the wrk suite and the
// side-by-side pairs.
import http from 'node:http';
import net from 'node:net';
import type { CannedBody } from './minimal-http.js';

export interface FetchedResponse {
  readonly status: number;
  readonly type: string;
  readonly body: Buffer;
  readonly lines: [string, string][];
}

/** One response of `path` (status, content type, body, header lines), over node:http. */
export function fetchOnce(port: number, path: string): Promise<FetchedResponse> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        const lines: [string, string][] = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) lines.push([res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string]);
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks), lines }),
        );
      })
      .on('error', reject);
  });
}

/** Header lines node:http writes by itself (a server that set them would send them twice or differently). */
export const NODE_HTTP_OWN_LINES: ReadonlySet<string> = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** The canned body of `path` on the server at `port`, and the same with every header line it sent but node:http's own. */
export async function cannedFrom(port: number, path: string): Promise<{ plain: CannedBody; withLines: CannedBody }> {
  const response = await fetchOnce(port, path);
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  const plain: CannedBody = { type: response.type, base64: response.body.toString('base64') };
  const lines = response.lines.filter(([name]) => !NODE_HTTP_OWN_LINES.has(name.toLowerCase()));
  return { plain, withLines: { ...plain, lines } };
}

/** One response of `path`, byte for byte (head and Content-Length body), over a raw socket. */
export function captureResponse(port: number, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 'latin1');
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const data = Buffer.concat(chunks);
      const end = data.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(data.toString('latin1', 0, Math.max(0, end)));
      if (end !== -1 && length && data.length >= end + 4 + Number(length[1])) {
        socket.destroy();
        resolve(data.subarray(0, end + 4 + Number(length[1])));
      }
    });
    socket.on('error', reject);
  });
}
