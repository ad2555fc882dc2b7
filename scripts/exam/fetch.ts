// Takes a client exam (docs/exam.md) with Node's fetch (undici) as an
// application would use it, defaults included, and prints the graded
// Markdown table. fetch has no retry, no cache and no timeout of its own:
// what it does by itself (redirects, Authorization dropped across origins)
// is graded as is; the runner adds only what each step asks the caller for
// (scripts/exam/node-steps.ts: a deadline with AbortSignal.timeout, a second
// call, Last-Event-ID on the reconnection: fetch has no EventSource).
// For the https step start it with NODE_EXTRA_CA_CERTS=root.pem (the hub's
// /tls/root.pem): fetch takes no root of its own.
//   node dist/scripts/exam/fetch.js [profile] [hub URL]   (default: retries, http://localhost:8082)
import { takeOwnExam, takeStep, type Call } from './node-steps.js';

/** One call, its body read chunk by chunk to its end (a cut stream rejects at its end, and what came before it counts). */
async function request(url: string, call: Call): Promise<void> {
  const res = await fetch(url, {
    method: call.method ?? 'GET',
    headers: { ...call.headers },
    ...(call.body !== undefined ? { body: call.body } : {}),
    ...(call.timeoutMs !== undefined ? { signal: AbortSignal.timeout(call.timeoutMs) } : {}),
  });
  for await (const chunk of res.body ?? []) call.onChunk?.(chunk);
}

await takeOwnExam('retries', 'fetch', (step) => takeStep(request, step));
