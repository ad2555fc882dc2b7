// One supervisor for every process `make up` runs (DESIGN §1): it starts them
// in order and waits for each to be ready, prefixes their output, restarts a
// process that dies after it was ready (with backoff), and stops them all,
// phase by phase, on Ctrl-C or SIGTERM. A process that dies before it was
// ever ready (a port taken, a bad setting) stops the whole stack instead of
// restarting forever.
//
// Every child runs in a process group of its own (`detached`), so a
// terminal's Ctrl-C, which signals the whole foreground group, reaches the
// supervisor alone and the children get only its phased stop (HAProxy soft,
// replicas drained, Redis last). The other half of that choice: a supervisor
// killed outright (SIGKILL) can no longer take its group down, so each child
// follows its parent by itself. The services stop (draining) when their IPC
// channel closes; the programs are started under `setpriv --pdeathsig`.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';

export interface ProcessSpec {
  /** Shown before each of its lines, e.g. `chaos.2`. */
  readonly name: string;
  /** Starts (or restarts) the process; its stdout and stderr must be pipes. */
  start(): ChildProcess;
  /** Resolves when the new process serves (an IPC ready message, a port that accepts); rejects if it cannot. */
  ready(child: ChildProcess): Promise<void>;
  /** Stopped in ascending phase order, each phase after the previous one exited (Redis last: the replicas still need it). */
  readonly stopPhase: number;
  /** The graceful stop signal (SIGTERM for ours; SIGUSR1 makes HAProxy finish its connections). */
  readonly stopSignal: NodeJS.Signals;
}

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 15_000;
/** A process that ran this long before dying starts again from the first backoff. */
const STABLE_MS = 30_000;

interface Running {
  readonly spec: ProcessSpec;
  child: ChildProcess | undefined;
  backoffMs: number;
  startedAt: number;
  restartTimer: NodeJS.Timeout | undefined;
}

export class Supervisor {
  readonly #processes: Running[] = [];
  #stopping = false;
  #stopped: Promise<void> | undefined;

  constructor(
    /** One line of the supervisor's own (already prefixed children's lines go to the same stream). */
    private readonly say: (line: string) => void,
    private readonly print: (line: string) => void,
  ) {
    // Never leave a child behind, whatever ends this process.
    process.on('exit', () => {
      for (const running of this.#processes) if (running.child && running.child.exitCode === null) running.child.kill('SIGKILL');
    });
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  /** Starts the process and waits until it is ready; rejects (after stopping it) if it exits or fails first. */
  async add(spec: ProcessSpec): Promise<void> {
    const running: Running = { spec, child: undefined, backoffMs: FIRST_BACKOFF_MS, startedAt: 0, restartTimer: undefined };
    this.#processes.push(running);
    const child = this.#spawn(running);
    const exited = new Promise<never>((_, reject) => {
      child.once('exit', (code, signal) => reject(new Error(`${spec.name} exited before it was ready (${signal ?? `code ${code}`})`)));
    });
    try {
      await Promise.race([spec.ready(child), exited]);
    } catch (error) {
      if (child.exitCode === null) child.kill('SIGKILL');
      throw error;
    }
    child.on('exit', (code, signal) => this.#onExit(running, child, code, signal));
  }

  #spawn(running: Running): ChildProcess {
    const child = running.spec.start();
    running.child = child;
    running.startedAt = Date.now();
    const prefix = `${running.spec.name.padEnd(10)}| `;
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this.print(prefix + line));
    }
    child.on('error', (error) => this.say(`${running.spec.name}: ${error.message}`));
    return child;
  }

  #onExit(running: Running, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (running.child !== child) return;
    running.child = undefined;
    if (this.#stopping) return;
    if (Date.now() - running.startedAt >= STABLE_MS) running.backoffMs = FIRST_BACKOFF_MS;
    const delay = running.backoffMs;
    running.backoffMs = Math.min(MAX_BACKOFF_MS, running.backoffMs * 2);
    this.say(`${running.spec.name} exited unexpectedly (${signal ?? `code ${code}`}); restarting in ${delay} ms`);
    running.restartTimer = setTimeout(() => {
      running.restartTimer = undefined;
      if (this.#stopping) return;
      const next = this.#spawn(running);
      next.on('exit', (c, s) => this.#onExit(running, next, c, s));
      running.spec.ready(next).then(
        () => this.say(`${running.spec.name} restarted and ready`),
        (error: unknown) => this.say(`${running.spec.name} restarted but is not ready: ${error instanceof Error ? error.message : String(error)}`),
      );
    }, delay);
  }

  /** The pid of a running process, by name (tests kill one to watch it come back). */
  pidOf(name: string): number | undefined {
    return this.#processes.find((r) => r.spec.name === name)?.child?.pid;
  }

  /**
   * Stops every process, phase by phase; each gets `graceMs` after its
   * signal before it is killed. Idempotent: later calls return the same promise.
   */
  stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.#stopped ??= (async () => {
      for (const running of this.#processes) clearTimeout(running.restartTimer);
      const phases = [...new Set(this.#processes.map((r) => r.spec.stopPhase))].sort((a, b) => a - b);
      for (const phase of phases) {
        const children = this.#processes.filter((r) => r.spec.stopPhase === phase).flatMap((r) => (r.child ? [{ r, child: r.child }] : []));
        await Promise.all(children.map(({ r, child }) => stopChild(child, r.spec.stopSignal, graceMs)));
      }
    })();
    return this.#stopped;
  }

  /** Kills everything at once (a second Ctrl-C). */
  kill(): void {
    this.#stopping = true;
    for (const running of this.#processes) {
      clearTimeout(running.restartTimer);
      if (running.child && running.child.exitCode === null) running.child.kill('SIGKILL');
    }
  }
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs + 5_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill(signal);
  });
}

/** Where util-linux puts setpriv (no PATH lookup: nothing here reads the environment). */
const SETPRIV_PATHS = ['/usr/bin/setpriv', '/bin/setpriv'];
const setpriv = SETPRIV_PATHS.find((path) => existsSync(path));

/**
 * The command line that runs `command` so that the kernel sends it
 * `signal` when the supervisor dies, however it dies (PR_SET_PDEATHSIG,
 * kept across exec; the process is `command` itself, setpriv execs it).
 * Without setpriv (not Linux) the command runs as it is.
 */
export function followingParent(command: string, args: readonly string[], signal: NodeJS.Signals = 'SIGTERM'): [string, string[]] {
  return setpriv ? [setpriv, ['--pdeathsig', signal, '--', command, ...args]] : [command, [...args]];
}

/** Resolves once `port` accepts a connection on loopback; rejects after `timeoutMs`. */
export async function portAccepts(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing accepts connections on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once a Redis on `port` answers PING (accepting is not enough: it may still be loading); rejects after `timeoutMs`. */
export async function redisAnswers(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pong = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
      socket.setTimeout(1000, () => socket.destroy());
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString('latin1').startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
    });
    if (pong) return;
    if (Date.now() > deadline) throw new Error(`Redis on 127.0.0.1:${port} does not answer PING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `count` distinct loopback ports that were free a moment ago, below the ephemeral range (privatePortRange); all held until each is known. */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    const [from, below] = privatePortRange();
    // Random candidates in the range; a taken one is skipped. A range too small for them all falls back to port 0.
    for (let tries = 0; ports.length < count && tries < count * 20 && below - from > count * 4; tries++) {
      const candidate = from + Math.floor(Math.random() * (below - from)); // Not seeded, on purpose: ports must differ between runs, and no response depends on them (docs/development.md).
      if (ports.includes(candidate)) continue;
      const server = net.createServer();
      if (await listensOn(server, candidate)) {
        servers.push(server);
        ports.push(candidate);
      }
    }
    while (ports.length < count) {
      const server = net.createServer();
      servers.push(server);
      if (!(await listensOn(server, 0))) throw new Error('no free loopback port');
      const address = server.address();
      ports.push(typeof address === 'object' && address ? address.port : 0);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** Where private ports are picked: from 10000 up to the kernel's ephemeral range (Linux: 32768–60999 by default). */
export const PRIVATE_PORTS_FROM = 10_000;

/**
 * [first, end) of the ports picked for the stack's private listeners: below
 * the ephemeral range, where the kernel takes the local port of every
 * outgoing connection. A port picked there (as port 0 gives) could be taken
 * by a client's connection between the pick and the replica's listen: it
 * happened to a replica in the test suite (EADDRINUSE, the stack stopped).
 */
export function privatePortRange(): [number, number] {
  let low = 32768;
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > 0) low = first;
  } catch {
    /* not Linux: the IANA dynamic range starts at 49152, and 32768 is below it too */
  }
  return [PRIVATE_PORTS_FROM, low];
}

/** Listens on 127.0.0.1:`port` (0: any); false when the port is taken. */
function listensOn(server: net.Server, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
}
