// Takes the exam's steps (scripts/exam/node-steps.ts) with axios, as an
// application does: one axios instance with its defaults (redirects followed
// by follow-redirects, up to 21; no retry; no cookie jar: axios has none of
// its own; no cache), `timeout` where a step asks for one.
//   node dist/scripts/exam/run.js axios [profile] [hub URL]
import https from 'node:https';
import type { Readable } from 'node:stream';
import axios from 'axios';
import { examCa, takeStepsFromStdin, type Call } from './node-steps.js';

const ca = examCa();
const client = axios.create(ca ? { httpsAgent: new https.Agent({ ca }) } : {});

async function request(url: string, call: Call): Promise<void> {
  const response = await client.request<Readable>({
    url,
    method: call.method ?? 'GET',
    headers: { ...call.headers },
    ...(call.body !== undefined ? { data: call.body } : {}),
    ...(call.timeoutMs !== undefined ? { timeout: call.timeoutMs } : {}),
    // The body as a stream, so the event stream is read as it comes; the other steps read it whole all the same.
    responseType: 'stream',
  });
  for await (const chunk of response.data) call.onChunk?.(chunk as Buffer);
}

await takeStepsFromStdin(request);
