// HAProxy for the tests that run it without the whole stack (the stack's own
// HAProxy is the supervisor's child: tests/helpers/stack.ts). In the
// foreground (-db: the process we start is HAProxy itself, ours to kill), on a
// configuration in a temporary folder; stopped at teardown, and killed by the
// kernel if the test process dies first (spawnFollowing: a tap timeout skips
// the teardown).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { refused, spawnFollowing } from './process.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** Writes `config` to a fresh /tmp/<prefix>-* folder, runs haproxy on it and resolves once `port` accepts (bounded: 10 s). */
export async function startHaproxy(t: Teardown, prefix: string, config: string, port: number): Promise<ChildProcess> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const haproxy = spawnFollowing('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  haproxy.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  t.teardown(() => {
    haproxy.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 10_000;
  while (await refused(port)) {
    if (haproxy.exitCode !== null || haproxy.signalCode !== null) throw new Error(`haproxy exited: ${stderr.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`haproxy does not accept on ${port} after 10 s: ${stderr.slice(-2000)}`);
    await sleep(50);
  }
  return haproxy;
}
