// The exam's steps for the Node runners (node:http, axios, got): what each
// step asks of the caller, written once over a small interface each client
// implements in its own file. The client does the rest by its defaults
// (retries, redirects, pooling, cookies where it has a jar). Reads `name url`
// lines on stdin, as scripts/exam/run.ts writes them.
import { readFileSync } from 'node:fs';
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

export async function takeStep(request: Request, { name, url }: Step): Promise<void> {
  // A failed request is the client's answer to a lie: the service records what happened.
  const send = (call: Call = {}): Promise<void> => request(url, call).catch(() => undefined);
  switch (name) {
    case 'redirect-302':
    case 'redirect-303':
    case 'redirect-307':
    case 'redirect-308':
      return send({ method: 'POST', headers: FORM, body: 'a=1&b=2' });
    case 'post-503':
      return send({ method: 'POST', headers: FORM, body: 'a=1' });
    case 'cross-host-authorization':
    case 'https-downgrade':
      return send({ headers: { authorization: 'Bearer exam-token' } });
    case 'stall':
    case 'slow-headers':
    case 'drip':
      return send({ timeoutMs: STEP_TIMEOUT_MS });
    case 'keepalive-lie':
    case 'etag':
    case 'last-modified':
    case 'no-store':
      await send();
      return send();
    case 'vary':
      await send({ headers: { 'accept-encoding': 'gzip' } });
      return send({ headers: { 'accept-encoding': 'identity' } });
    case 'sse-resume':
      return eventStream(send);
    default:
      // The retry steps, the loop, the cookie hop, the download: the client as it is.
      return send();
  }
}

/** Reads the steps on stdin and takes them all at once with `request`. */
export async function takeStepsFromStdin(request: Request): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  await Promise.all(parseSteps(Buffer.concat(chunks).toString('utf8')).map((step) => takeStep(request, step)));
}
