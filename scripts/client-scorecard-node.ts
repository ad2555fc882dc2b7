// The two Node clients of the client scorecard (scripts/client-scorecard.ts):
// built-in fetch (undici) and node:http. Each run is a child process of its
// own, so it starts with an empty connection pool as curl does, and a client
// that hangs is killed with its process. Prints the outcomes as JSON.
//
//   node dist/scripts/client-scorecard-node.js fetch|node-http '{"urls":[…],"json":false,"timeoutMs":5000}'
import http from 'node:http';
import { fileURLToPath } from 'node:url';

/** What one request gave a client: a status and bytes, an error, or both (a head, then a broken body). */
export interface RequestOutcome {
  readonly status?: number;
  readonly bytes?: number;
  /** The error the client raised, `Class: message`. */
  readonly error?: string;
  /** For JSON lies: "parsed", or the parser's error. */
  readonly json?: string;
  /** What else the client reported (an interim 1xx, for instance). */
  readonly notes?: readonly string[];
}

export interface NodeClientSpec {
  readonly urls: readonly string[];
  readonly json: boolean;
  readonly timeoutMs: number;
}

/** `Name: message`, then each cause the same way (undici hides the real error in `cause`). */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 3; depth++) {
    if (e instanceof Error) {
      const code = (e as NodeJS.ErrnoException).code;
      // DOMException's numeric code (23 for a timeout) says nothing its name does not.
      parts.push(`${e.name}${typeof code === 'string' ? ` ${code}` : ''}: ${e.message}`);
      e = e.cause;
    } else {
      parts.push(String(e));
      break;
    }
  }
  return parts.join(' (cause: ') + ')'.repeat(parts.length - 1);
}

function parseJson(body: Buffer): string {
  try {
    JSON.parse(body.toString('utf8'));
    return 'parsed';
  } catch (error) {
    return describeError(error);
  }
}

/** Built-in fetch, one after the other (undici reuses its pooled connection); the whole exchange bounded by the timeout. */
async function viaFetch(spec: NodeClientSpec): Promise<RequestOutcome[]> {
  const outcomes: RequestOutcome[] = [];
  for (const url of spec.urls) {
    let status: number | undefined;
    let bytes = 0;
    const chunks: Buffer[] = [];
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(spec.timeoutMs) });
      status = response.status;
      const reader = response.body?.getReader();
      for (;;) {
        const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
        if (chunk.done) break;
        bytes += chunk.value.length;
        chunks.push(Buffer.from(chunk.value));
      }
      outcomes.push({ status, bytes, ...(spec.json ? { json: parseJson(Buffer.concat(chunks)) } : {}) });
    } catch (error) {
      outcomes.push(status === undefined ? { error: describeError(error) } : { status, bytes, error: describeError(error) });
    }
  }
  return outcomes;
}

/** node:http with a keep-alive agent of one socket; the timeout is the socket's idle timeout. */
async function viaNodeHttp(spec: NodeClientSpec): Promise<RequestOutcome[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const outcomes: RequestOutcome[] = [];
  for (const url of spec.urls) {
    outcomes.push(
      await new Promise<RequestOutcome>((resolve) => {
        const notes: string[] = [];
        let status: number | undefined;
        let bytes = 0;
        const chunks: Buffer[] = [];
        let error: string | undefined;
        let settled = false;
        const settle = (complete: boolean): void => {
          if (settled) return;
          settled = true;
          if (status !== undefined && complete && error === undefined) {
            resolve({ status, bytes, ...(spec.json ? { json: parseJson(Buffer.concat(chunks)) } : {}), ...(notes.length ? { notes } : {}) });
          } else {
            const why = error ?? 'the response ended incomplete, with no error';
            resolve({ ...(status !== undefined ? { status, bytes } : {}), error: why, ...(notes.length ? { notes } : {}) });
          }
        };
        const request = http.get(url, { agent, timeout: spec.timeoutMs }, (response) => {
          status = response.statusCode;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            chunks.push(chunk);
          });
          response.on('error', (e) => (error ??= describeError(e)));
          response.on('end', () => settle(response.complete));
          response.on('close', () => settle(response.complete));
        });
        request.on('information', (info) => notes.push(`interim ${info.statusCode} ${info.statusMessage}`));
        request.on('timeout', () => request.destroy(new Error(`socket idle for ${spec.timeoutMs} ms (timeout option)`)));
        request.on('error', (e) => {
          error ??= describeError(e);
          if (status === undefined) settle(false);
        });
        request.on('close', () => {
          if (status === undefined) settle(false);
        });
      }),
    );
  }
  agent.destroy();
  return outcomes;
}

export const NODE_CLIENTS = { fetch: viaFetch, 'node-http': viaNodeHttp } as const;
export type NodeClient = keyof typeof NODE_CLIENTS;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [client, specJson] = process.argv.slice(2) as [string | undefined, string | undefined];
  if (client !== 'fetch' && client !== 'node-http') throw new Error(`usage: client-scorecard-node.js fetch|node-http '<spec JSON>'`);
  const outcomes = await NODE_CLIENTS[client](JSON.parse(specJson ?? '{}') as NodeClientSpec);
  // A held connection must not keep this process alive: exit once the line is out.
  process.stdout.write(`${JSON.stringify(outcomes)}\n`, () => process.exit(0));
}
