// A real redis-server for the tests (DESIGN §11: no mocks): started on a free
// loopback port with no persistence, stopped at teardown. The tests can
// SIGKILL it and restart it on the same port, or SIGSTOP and SIGCONT it.
// `make test` installs redis-server (scripts/ensure-tools.sh).
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, spawnFollowing } from './process.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface RedisServer {
  readonly port: number;
  /** redis://127.0.0.1:<port> */
  readonly url: string;
  /** The running process's pid (undefined once killed or stopped). */
  pid(): number | undefined;
  /** SIGKILL; resolves once the process is gone (its port refuses connections). */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: nothing was saved) and waits until it answers PING. */
  restart(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing is answered. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** One command over a raw socket, reply as text (for INFO and the like without a client library). */
  command(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A RESP request for `args`. */
function resp(args: readonly string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

/** Sends one command and resolves with the raw reply once `complete` says it is whole (bounded). */
export function rawCommand(port: number, args: readonly string[], timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = net.connect({ port, host: '127.0.0.1' }, () => socket.write(resp(args)));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis ${args[0]}: no reply within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('utf8');
      if (replyComplete(data)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(data);
      }
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Whether `data` holds one whole RESP reply (simple, bulk or array). */
function replyComplete(data: string): boolean {
  return replyEnd(Buffer.from(data), 0) !== -1;
}

/** The offset after the reply starting at `at`, or -1 while it is incomplete. */
function replyEnd(data: Buffer, at: number): number {
  const end = data.indexOf('\r\n', at);
  if (end === -1) return -1;
  const type = String.fromCharCode(data[at] as number);
  const n = Number(data.toString('latin1', at + 1, end));
  if (type === '$') return n < 0 ? end + 2 : data.length >= end + 2 + n + 2 ? end + 2 + n + 2 : -1;
  if (type === '*') {
    let next = end + 2;
    for (let i = 0; i < n; i++) {
      next = replyEnd(data, next);
      if (next === -1) return -1;
    }
    return next;
  }
  return end + 2;
}

async function answersPing(port: number): Promise<boolean> {
  try {
    return (await rawCommand(port, ['PING'], 500)).startsWith('+PONG');
  } catch {
    return false;
  }
}

function launch(port: number, unixSocket: string | undefined): { child: ChildProcess; output: () => string } {
  const socketArgs = unixSocket === undefined ? [] : ['--unixsocket', unixSocket, '--unixsocketperm', '700'];
  const child = spawnFollowing('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning', ...socketArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  child.once('error', (error) => (output += `spawn failed: ${error.message} (is redis-server installed? make test installs it)`));
  return { child, output: () => output };
}

/** Starts redis-server and resolves once it answers PING; fails with its output if it exits first. */
async function launchReady(port: number, unixSocket?: string): Promise<{ child: ChildProcess; output: () => string } | undefined> {
  const started = launch(port, unixSocket);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null || started.child.signalCode !== null || started.output().includes('spawn failed')) {
      if (/Address already in use/i.test(started.output())) return undefined;
      throw new Error(`redis-server exited: ${started.output()}`);
    }
    if (await answersPing(port)) return started;
    await sleep(20);
  }
  started.child.kill('SIGKILL');
  throw new Error(`redis-server did not answer PING on ${port} within 10 s: ${started.output()}`);
}

export interface RedisOptions {
  /** The port to listen on (default: a free one). */
  readonly port?: number;
  /** Also listen on this unix socket. */
  readonly unixSocket?: string;
}

/** Starts redis-server on a free loopback port (or the one given), stopped at teardown. */
export async function startRedis(t: Teardown, options: RedisOptions = {}): Promise<RedisServer> {
  let port = 0;
  let current: ChildProcess | undefined;
  for (let attempt = 1; current === undefined; attempt++) {
    port = options.port ?? (await freePort());
    current = (await launchReady(port, options.unixSocket))?.child;
    if (current === undefined && attempt >= 5) throw new Error(`redis-server: could not bind a port after 5 attempts (last ${port})`);
  }
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid: () => (current && current.exitCode === null && current.signalCode === null ? current.pid : undefined),
    async kill() {
      if (!current) return;
      const child = current;
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await exited(child);
    },
    async restart() {
      if (current && current.exitCode === null && current.signalCode === null) await server.kill();
      // The old process is gone; its port may linger for a moment.
      for (let attempt = 1; ; attempt++) {
        const started = await launchReady(port, options.unixSocket);
        if (started) {
          current = started.child;
          return;
        }
        if (attempt >= 50) throw new Error(`redis-server could not bind ${port} again`);
        await sleep(100);
      }
    },
    pause() {
      current?.kill('SIGSTOP');
    },
    resume() {
      current?.kill('SIGCONT');
    },
    command(...args) {
      return rawCommand(port, args);
    },
    async stop() {
      await server.kill();
      current = undefined;
    },
  };
  t.teardown(() => server.stop());
  return server;
}

/** INFO commandstats as `{ command: calls }` (e.g. evalsha). */
export async function commandCalls(server: RedisServer): Promise<Record<string, number>> {
  const info = await server.command('INFO', 'commandstats');
  const calls: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1] as string] = Number(m[2]);
  return calls;
}
