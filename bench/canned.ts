// What a node:http baseline needs to put the same bytes on the wire as the
// host it is compared with: one response of a path, with its header lines
// (bench/minimal-http.ts replays them). Shared by the wrk suite and the
// side-by-side pairs.
import http from 'node:http';
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
