// Takes the exam's steps (scripts/exam/node-steps.ts) with got, as an
// application does: got's defaults (redirects followed; up to 2 retries of
// idempotent methods on 408/413/429/5xx, honouring Retry-After; no cookie jar
// unless one is passed: none is; no cache unless one is passed), and
// `timeout.request` (the whole exchange) where a step asks for one.
//   node dist/scripts/exam/run.js got [profile] [hub URL]
import got from 'got';
import { examCa, takeStepsFromStdin, type Call } from './node-steps.js';

const ca = examCa();
const client = got.extend(ca ? { https: { certificateAuthority: ca } } : {});

async function request(url: string, call: Call): Promise<void> {
  const options = {
    method: call.method ?? 'GET',
    headers: { ...call.headers },
    ...(call.body !== undefined ? { body: call.body } : {}),
    ...(call.timeoutMs !== undefined ? { timeout: { request: call.timeoutMs } } : {}),
  } as const;
  if (call.onChunk === undefined) {
    await client(url, options);
    return;
  }
  // The event stream read as it comes: got's stream API (which does not retry by itself).
  for await (const chunk of client.stream(url, options)) call.onChunk(chunk as Buffer);
}

await takeStepsFromStdin(request);
