// The full local stack as `make up` runs it (supervisor, Redis, replicas,
// HAProxy), started by a test on a free front port and stopped at teardown.
// `make test` installs haproxy and redis-server (scripts/ensure-tools.sh).
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, spawnNode, type Spawned } from './process.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface Stack {
  readonly front: number;
  /** HAProxy's private stats and metrics port. */
  readonly admin: number;
  readonly supervisor: Spawned;
  /** Public URL prefixes as the banner printed them. */
  readonly urls: Readonly<Record<'chaos' | 'control' | 'bots' | 'hub', string>>;
  /** The running replicas of a service: pid and private port. */
  replicas(service: 'chaos' | 'control' | 'bots'): { pid: number; port: number }[];
  /** Every process the supervisor started (its children). */
  children(): number[];
  /** HAProxy's view of a backend's servers: name → status (UP, DOWN, …). */
  serverStatus(backend: string): Promise<Record<string, string>>;
}

const PORT_VARIABLE = { chaos: 'CHAOS_PORT', control: 'CONTROL_PORT', bots: 'BOTS_PORT' } as const;

export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) comes after the parenthesised command name.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startStack(t: Teardown, env: Readonly<Record<string, string>> = {}): Promise<Stack> {
  const front = await freePort();
  const supervisor = spawnNode('services/main.js', { STACK: 'full', FRONT_PORT: String(front), LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '2000', ...env });
  t.teardown(async () => {
    if (supervisor.child.exitCode === null) {
      supervisor.child.kill('SIGTERM');
      await Promise.race([supervisor.exited, sleep(10_000)]);
      supervisor.child.kill('SIGKILL');
    }
  });
  const deadline = Date.now() + 90_000;
  while (!supervisor.stdout().includes('Ctrl-C stops everything')) {
    if (supervisor.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`the stack did not start:\n${supervisor.stdout().slice(-2000)}\n${supervisor.stderr().slice(-2000)}`);
    }
    await sleep(50);
  }
  const banner = supervisor.stdout();
  const admin = Number(/HAProxy {2}http:\/\/127\.0\.0\.1:(\d+)\/stats/.exec(banner)?.[1]);
  const url = (name: string): string => (new RegExp(`^  ${name} +(http://\\S+)/`, 'm').exec(banner)?.[1] ?? '') as string;
  const pid = supervisor.child.pid as number;
  return {
    front,
    admin,
    supervisor,
    urls: { chaos: url('chaos'), control: url('control'), bots: url('bots'), hub: url('hub') },
    children: () => childrenOf(pid),
    replicas(service) {
      return childrenOf(pid).flatMap((child) => {
        try {
          const cmdline = readFileSync(`/proc/${child}/cmdline`, 'utf8');
          if (!cmdline.includes(`services/${service}/main.js`)) return [];
          const environ = readFileSync(`/proc/${child}/environ`, 'utf8').split('\0');
          const port = Number(environ.find((e) => e.startsWith(`${PORT_VARIABLE[service]}=`))?.split('=')[1]);
          return [{ pid: child, port }];
        } catch {
          return [];
        }
      });
    },
    async serverStatus(backend) {
      const csv = await (await fetch(`http://127.0.0.1:${admin}/stats;csv`)).text();
      const rows = csv.split('\n').map((line) => line.split(','));
      const header = (rows[0] as string[]).map((h) => h.replace(/^# /, ''));
      const status = header.indexOf('status');
      return Object.fromEntries(
        rows.filter((r) => r[0] === backend && r[1] !== 'BACKEND').map((r) => [r[1] as string, r[status] as string]),
      );
    },
  };
}
