// Runs tests/helpers/eventsource-client.ts (a real WHATWG EventSource) in a
// child Node process and returns what it saw.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EventSourceRun {
  readonly opens: number;
  readonly errors: number;
  readonly events: readonly { readonly type: string; readonly id: string; readonly data: string }[];
  /** At the end: 0 connecting, 1 open, 2 closed (the client gave up). */
  readonly readyState: number;
}

const CLIENT = join(dirname(fileURLToPath(import.meta.url)), 'eventsource-client.js');

/** Listens to `url` until `deadlineMs` or `maxEvents` events; the child is killed 10 s after the deadline at the latest. */
export function runEventSource(url: string, deadlineMs: number, maxEvents: number): Promise<EventSourceRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--experimental-eventsource', '--no-warnings', CLIENT, JSON.stringify({ url, deadlineMs, maxEvents })],
      { timeout: deadlineMs + 10_000 },
      (error, stdout) => {
        if (error) reject(error);
        else resolve(JSON.parse(stdout) as EventSourceRun);
      },
    );
  });
}
