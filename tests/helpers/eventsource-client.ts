// A real EventSource against one URL, for the /sse client cells: Node 24's
// WHATWG EventSource (undici's, behind --experimental-eventsource), run as a
// child process by tests/helpers/eventsource.ts. It listens as the docs tell a
// client to (addEventListener('tick')) and with onmessage, reconnects on its
// own (sending Last-Event-ID), and stops at the deadline or at maxEvents,
// then prints what it saw as one JSON line.

interface Options {
  readonly url: string;
  readonly deadlineMs: number;
  readonly maxEvents: number;
}

interface Seen {
  readonly type: string;
  readonly id: string;
  readonly data: string;
}

/** The global only exists under --experimental-eventsource; typed here, not assumed. */
interface EventSourceLike {
  readyState: number;
  onopen: (() => void) | null;
  onerror: (() => void) | null;
  onmessage: ((e: { data: string; lastEventId: string }) => void) | null;
  addEventListener(type: string, listener: (e: { data: string; lastEventId: string }) => void): void;
  close(): void;
}
const EventSourceClass = (globalThis as unknown as { EventSource?: new (url: string) => EventSourceLike }).EventSource;

const options = JSON.parse(process.argv[2] ?? '{}') as Options;
if (EventSourceClass === undefined) {
  process.stdout.write(`${JSON.stringify({ error: 'no global EventSource: run with --experimental-eventsource' })}\n`);
  process.exit(2);
}
const source = new EventSourceClass(options.url);
const events: Seen[] = [];
let opens = 0;
let errors = 0;
const finish = (): void => {
  const readyState = source.readyState;
  source.close();
  process.stdout.write(`${JSON.stringify({ opens, errors, events, readyState })}\n`);
  process.exit(0);
};
const timer = setTimeout(finish, options.deadlineMs);
const record = (type: string) => (e: { data: string; lastEventId: string }): void => {
  events.push({ type, id: e.lastEventId, data: e.data });
  if (events.length >= options.maxEvents) {
    clearTimeout(timer);
    finish();
  }
};
source.onopen = () => void opens++;
source.onerror = () => void errors++;
source.onmessage = record('message');
source.addEventListener('tick', record('tick'));
