// Takes a client exam (docs/exam.md) with Node's fetch (undici) as an
// application would use it, defaults included, and prints the graded
// Markdown table. fetch has no retry, no cache and no timeout of its own:
// what it does by itself (redirects, Authorization dropped across origins)
// is graded as is; the runner adds only what each step asks the caller for
// (a deadline with AbortSignal.timeout, a second call, Last-Event-ID).
//   node dist/scripts/exam/fetch.js [profile] [hub URL]   (default: retries, http://localhost:8082)
import { setTimeout as sleep } from 'node:timers/promises';

interface Step {
  readonly name: string;
  readonly url: string;
}

/** One call; the body read to its end, or to the deadline; errors swallowed (the service records what happened). */
async function call(url: string, init: RequestInit = {}): Promise<Response | undefined> {
  try {
    const res = await fetch(url, init);
    await res.arrayBuffer().catch(() => undefined);
    return res;
  } catch {
    return undefined;
  }
}

async function take({ name, url }: Step): Promise<void> {
  switch (name) {
    case 'redirect-302':
    case 'redirect-303':
    case 'redirect-307':
    case 'redirect-308':
      await call(url, { method: 'POST', body: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      return;
    case 'post-503':
      await call(url, { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      return;
    case 'cross-host-authorization':
    case 'https-downgrade':
      // https-downgrade: fetch trusts the test root only when started with NODE_EXTRA_CA_CERTS=root.pem (docs/exam.md).
      await call(url, { headers: { authorization: 'Bearer exam-token' } });
      return;
    case 'llm-529-retry-after':
      // fetch has no retry of its own: one call, as an application without a retry loop makes it.
      await call(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'exam', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }),
      });
      return;
    case 'stall':
    case 'slow-headers':
    case 'drip':
      await call(url, { signal: AbortSignal.timeout(2000) });
      return;
    case 'keepalive-lie':
    case 'etag':
    case 'last-modified':
    case 'no-store':
      await call(url);
      await call(url);
      return;
    case 'vary':
      await call(url, { headers: { 'accept-encoding': 'gzip' } });
      await call(url, { headers: { 'accept-encoding': 'identity' } });
      return;
    case 'sse-resume': {
      // fetch has no EventSource: read the stream, then reconnect once as the caller must.
      const res = await fetch(url, { headers: { accept: 'text/event-stream' } }).catch(() => undefined);
      // Read chunk by chunk: the cut stream rejects at its end, and what came before it counts.
      let text = '';
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res?.body ?? []) text += decoder.decode(chunk, { stream: true });
      } catch {
        /* cut mid-event */
      }
      const ids = [...text.matchAll(/^id: ?(.*)\n(?:[^\n]+\n)*\n/gm)].map((m) => m[1] as string);
      await sleep(3000);
      await call(url, { headers: { accept: 'text/event-stream', ...(ids.length > 0 ? { 'last-event-id': ids.at(-1) as string } : {}) } });
      return;
    }
    default:
      // retries, the loop, the download, the cookie hop (fetch keeps no cookies): fetch as is (it neither retries nor resumes by itself).
      // mcp-session-expired too: fetch is no MCP client (dist/scripts/exam/agents.js takes that step with the MCP SDK).
      await call(url);
  }
}

const [profile = 'retries', hub = 'http://localhost:8082'] = process.argv.slice(2);
const opened = await fetch(`${hub}/exam?profile=${encodeURIComponent(profile)}`, { method: 'POST' });
if (opened.status !== 201) {
  process.stderr.write(`no exam opened: ${opened.status} ${await opened.text()}\n`);
  process.exit(1);
}
const exam = (await opened.json()) as { id: string; steps: Step[] };
process.stderr.write(`exam ${exam.id} (${profile}): ${exam.steps.length} steps, fetch in Node ${process.version}\n`);
await Promise.all(exam.steps.map(take));
await sleep(1000);
process.stdout.write(await (await fetch(`${hub}/exam/${exam.id}.md`)).text());
