// The exam's steps for the Node runners (fetch, node:http, axios, got, and
// Chromium's page): what each step asks of the caller, written once as data
// (planOf) over a small interface each client implements in its own file. The client does the rest by its defaults
// (retries, redirects, pooling, cookies where it has a jar). Reads `name url`
// lines on stdin, as scripts/exam/run.ts writes them.
import { readFileSync } from 'node:fs';
import './loopback.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** The caller's deadline for the steps that ask for one (stall, slow-headers, drip). */
export const STEP_TIMEOUT_MS = 2000;

export interface Call {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The client's own timeout option, set to STEP_TIMEOUT_MS where the step asks for one. */
  readonly timeoutMs?: number;
  /** Each body chunk as it arrives (the event stream). */
  readonly onChunk?: (chunk: Uint8Array) => void;
}

/** One request with the runner's client, its body read to the end; rejects as the client does. */
export type Request = (url: string, call: Call) => Promise<void>;

export interface Step {
  readonly name: string;
  readonly url: string;
}

/** `name url` lines. */
export function parseSteps(text: string): Step[] {
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields): fields is [string, string] => fields.length === 2)
    .map(([name, url]) => ({ name, url }));
}

/** The root the https steps trust (EXAM_CA_FILE), when given. */
export function examCa(): Buffer | undefined {
  const file = process.env.EXAM_CA_FILE;
  return file ? readFileSync(file) : undefined;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The event stream, read; then one reconnection after `retry:` with Last-Event-ID, as the caller must (no SSE in these clients). */
async function eventStream(send: (call: Call) => Promise<void>): Promise<void> {
  let buffer = '';
  let pending: string | undefined;
  let last: string | undefined;
  let retryMs = 3000;
  const decoder = new TextDecoder();
  await send({
    headers: { accept: 'text/event-stream' },
    onChunk: (chunk) => {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, end).replace(/\r$/, '');
        buffer = buffer.slice(end + 1);
        // Only a dispatched event's id becomes the last event id.
        if (line === '') last = pending ?? last;
        else if (line.startsWith('id:')) pending = line.slice(3).trim();
        else if (/^retry: ?\d+$/.test(line)) retryMs = Number(line.slice(6).trim());
      }
    },
  });
  await sleep(retryMs + 50);
  await send({ headers: { accept: 'text/event-stream', ...(last !== undefined ? { 'last-event-id': last } : {}) } });
}

/** What a step asks of the caller: requests made one after the other, or an event stream read and resumed once. */
export type StepPlan = { readonly calls: readonly Call[] } | { readonly eventStream: true };

const JSON_POST = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };

/**
 * The calls each step asks for, as data: the Node takers run them here, and
 * Chromium's page runs the same plan with the browser's fetch. What is not
 * named is one GET with the client as it is (the retry steps, the loop, the
 * cookie hop, the download; mcp-session-expired too: no MCP client here).
 */
export function planOf(name: string): StepPlan {
  switch (name) {
    case 'redirect-302':
    case 'redirect-303':
    case 'redirect-307':
    case 'redirect-308':
      return { calls: [{ method: 'POST', headers: FORM, body: 'a=1&b=2' }] };
    case 'post-503':
      return { calls: [{ method: 'POST', headers: FORM, body: 'a=1' }] };
    case 'cross-host-authorization':
    case 'https-downgrade':
      return { calls: [{ headers: { authorization: 'Bearer exam-token' } }] };
    case 'llm-529-retry-after':
      // An Anthropic-shape POST, once: a client without a retry loop of its own makes one call.
      return { calls: [{ method: 'POST', headers: JSON_POST, body: JSON.stringify({ model: 'exam', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }) }] };
    case 'stall':
    case 'slow-headers':
    case 'drip':
      return { calls: [{ timeoutMs: STEP_TIMEOUT_MS }] };
    case 'keepalive-lie':
    case 'etag':
    case 'last-modified':
    case 'no-store':
      return { calls: [{}, {}] };
    case 'vary':
      return { calls: [{ headers: { 'accept-encoding': 'gzip' } }, { headers: { 'accept-encoding': 'identity' } }] };
    case 'sse-resume':
      return { eventStream: true };
    default:
      return { calls: [{}] };
  }
}

export async function takeStep(request: Request, { name, url }: Step): Promise<void> {
  // A failed request is the client's answer to a lie: the service records what happened.
  const send = (call: Call = {}): Promise<void> => request(url, call).catch(() => undefined);
  const plan = planOf(name);
  if ('eventStream' in plan) return eventStream(send);
  for (const call of plan.calls) await send(call);
}

/** Reads the steps on stdin and takes them all at once with `request`. */
export async function takeStepsFromStdin(request: Request): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  await Promise.all(parseSteps(Buffer.concat(chunks).toString('utf8')).map((step) => takeStep(request, step)));
}

/**
 * A runner that opens its exam itself (fetch.ts, agents.ts): `[profile] [hub
 * URL]` from the command line, every step taken at once with `take`, then the
 * graded Markdown table (its `Report:` line is what run.js reads).
 */
export async function takeOwnExam(defaultProfile: string, client: string, take: (step: Step) => Promise<void>): Promise<void> {
  const [profile = defaultProfile, hub = 'http://localhost:8082'] = process.argv.slice(2);
  const opened = await fetch(`${hub}/exam?profile=${encodeURIComponent(profile)}`, { method: 'POST' });
  if (opened.status !== 201) {
    process.stderr.write(`no exam opened: ${opened.status} ${await opened.text()}\n`);
    process.exit(1);
  }
  const exam = (await opened.json()) as { id: string; steps: Step[] };
  process.stderr.write(`exam ${exam.id} (${profile}): ${exam.steps.length} steps, ${client} in Node ${process.version}\n`);
  await Promise.all(exam.steps.map(take));
  // The last entries are written as their exchanges end.
  await sleep(1000);
  process.stdout.write(await (await fetch(`${hub}/exam/${exam.id}.md`)).text());
}
