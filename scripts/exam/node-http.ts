// Takes the exam's steps (scripts/exam/node-steps.ts) with node:http alone, as
// an application without an HTTP library does: Node's global agent (keep-alive
// pooling since Node 19), no redirect following, no retry, no cookie jar and
// no cache of its own, `timeout` (socket idle time) where a step asks for one.
//   node dist/scripts/exam/run.js node-http [profile] [hub URL]
import http from 'node:http';
import https from 'node:https';
import { examCa, takeStepsFromStdin, type Call } from './node-steps.js';

const ca = examCa();
const tlsAgent = new https.Agent({ keepAlive: true, ...(ca ? { ca } : {}) });

function request(url: string, call: Call): Promise<void> {
  return new Promise((resolve, reject) => {
    const secure = url.startsWith('https:');
    const options = { method: call.method ?? 'GET', headers: { ...call.headers }, ...(secure ? { agent: tlsAgent } : {}) };
    const req = (secure ? https : http).request(url, options, (res) => {
      res.on('data', (chunk: Buffer) => call.onChunk?.(chunk));
      res.on('end', resolve);
      res.on('error', reject);
      res.on('aborted', () => reject(new Error('aborted')));
    });
    // node:http's timeout is the socket's idle time; the caller ends the request when it fires.
    if (call.timeoutMs !== undefined) req.setTimeout(call.timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(call.body);
  });
}

await takeStepsFromStdin(request);
