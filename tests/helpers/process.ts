// Spawning the built services as real processes, on free loopback ports.
import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { followingParent, portAccepts } from '../../services/supervisor.js';
import { NODE_FLAGS, serviceOfMain } from '../../shared/runtime/node-flags.js';

export const DIST = fileURLToPath(new URL('../../', import.meta.url));

/** A port that was free a moment ago (bind 0, read, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Spawns a long-lived program (haproxy, redis-server, a service) that dies with this test process,
 * however it dies. A teardown alone is not enough: a test too busy to see its own timeout is killed
 * (scripts/run-tests.ts), which runs neither a teardown nor an 'exit' handler, so a program in a
 * process group of its own would outlive the test holding its port. The kernel sends `signal` when we die (`setpriv --pdeathsig`, as the
 * supervisor starts its programs): SIGKILL for programs with nothing to save, SIGTERM for ours
 * (a supervisor then stops its own children). tests/integration/front-door/orphans.test.ts proves it.
 */
export function spawnFollowing(command: string, args: readonly string[], options: SpawnOptions, signal: NodeJS.Signals = 'SIGKILL'): ChildProcess {
  const [file, argv] = followingParent(command, args, signal);
  return spawn(file, argv, options);
}

export interface Spawned {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a built script; a service's main gets its node flags, as every launcher starts it, unless `nodeFlags` says otherwise. */
export function spawnNode(script: string, env: Readonly<Record<string, string>>, nodeFlags?: readonly string[]): Spawned {
  const service = serviceOfMain(script);
  const flags = nodeFlags ?? (service ? NODE_FLAGS[service] : []);
  const child = spawnFollowing(process.execPath, [...flags, `${DIST}${script}`], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }, 'SIGTERM');
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Resolves once something accepts connections on the port (bounded): the supervisor's own wait. */
export function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  return portAccepts(port, timeoutMs);
}

/** True when a connection to the port is refused. */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Runs a client program to its end (or `timeoutMs`), never rejecting: its exit code (-1 when killed or not started) and its output. */
export function runClient(file: string, args: readonly string[], timeoutMs: number): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** Running, as opposed to gone or a zombie nobody reaped yet (a zombie holds no port and runs nothing). */
export function processRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}
