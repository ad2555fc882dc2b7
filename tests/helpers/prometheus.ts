// A real Prometheus (Debian's `prometheus` package; `make tools` installs it)
// started by a test on a free loopback port with a configuration the test
// gives, queried through its HTTP API, stopped and its files removed at teardown.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, spawnFollowing } from './process.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

export interface QueryAnswer {
  readonly status: string;
  readonly error?: string;
  readonly data?: { readonly resultType: string; readonly result: readonly Sample[] };
}

export interface RunningPrometheus {
  readonly port: number;
  /** An instant query at `time` (seconds; now by default), as /api/v1/query answers it. */
  query(expr: string, time?: number): Promise<QueryAnswer>;
  /** The values of a label on the series matching a selector: Grafana's label_values(selector, label). */
  labelValues(selector: string, label: string): Promise<string[]>;
  /** The log, for failure messages. */
  log(): string;
}

export async function startPrometheus(t: Teardown, config: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-test-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, config);
  const port = await freePort();
  const child = spawnFollowing(
    'prometheus',
    [`--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}):\n${log.slice(-2000)}`);
    const ready = await fetch(`${base}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`prometheus did not get ready:\n${log.slice(-2000)}`);
    await sleep(100);
  }
  return {
    port,
    async query(expr, time) {
      const params = new URLSearchParams({ query: expr, ...(time === undefined ? {} : { time: String(time) }) });
      return (await (await fetch(`${base}/api/v1/query?${params.toString()}`)).json()) as QueryAnswer;
    },
    async labelValues(selector, label) {
      const params = new URLSearchParams({ 'match[]': selector });
      const answer = (await (await fetch(`${base}/api/v1/label/${label}/values?${params.toString()}`)).json()) as { data?: string[] };
      return answer.data ?? [];
    },
    log: () => log,
  };
}
