// The h2c upgrade table of the client scorecard (issue 28): the clients that
// can ask for HTTP/2 with `Upgrade: h2c` on cleartext (curl --http2, which
// asks on every http:// request; nghttp -u; Python's h2 driven by hand,
// scripts/scorecard/h2c-python-client.py, since httpx and Node's http2 have
// no h2c upgrade) against the `/h2/upgrade` lies, a few `/h2/*` lies met
// through the upgrade, and an ordinary endpoint that must not be upgraded.
// tests/integration/http2/upgrade-clients.test.ts asserts the same cells.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ChaosServer } from '../../services/chaos/server.js';
import { serviceRegistries } from '../../services/registries.js';
import { loadConfig } from '../../shared/config/config.js';
import { createLogger } from '../../shared/config/log.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { curlAndNghttpVersions, describeCurlH2, describeNghttp, H2_PYTHON } from './h2-clients.js';
import type { MatrixResult, MatrixSpec } from './markdown.js';
import { inPool } from './pool.js';
import { runProgram } from './tls-clients.js';

/** Each client's own timeout (a lie that holds ends in it). */
export const H2C_TIMEOUT_S = 10;

/** The rows: the baseline that is not upgraded, lies met through the upgrade, then the /h2/upgrade lies. */
export const H2C_PATHS: readonly string[] = [
  '/status/200',
  '/h2/frames?mode=unknown-type',
  '/h2/rst',
  '/h2/goaway?mode=zero',
  '/h2/headers?mode=uppercase',
  '/h2/settings?mode=max-frame-invalid',
  '/h2/upgrade?mode=lie-101-then-h1',
  '/h2/upgrade?mode=no-settings-frame',
];

export const H2C_SPEC: MatrixSpec = {
  heading: 'HTTP/2 by the h2c upgrade: what clients do',
  intro: [[
    'The [h2c upgrade](http2.md#the-h2c-upgrade) (RFC 7540 §3.2; RFC 9113 §3.1 deprecates it) on the chaos port:',
    'an HTTP/1.1 request with `Upgrade: h2c` to an `/h2/*` lie gets `101` and the lie on stream 1;',
    '`/h2/upgrade` lies about the upgrade itself; an ordinary endpoint (`/status/200`) is not upgraded.',
    'A cell is the client\'s own words: curl\'s exit code and the version it read, nghttp\'s "not processed"',
    'or the status, and for Python h2 the upgrade\'s status, then stream 1\'s status and bytes or h2\'s error.',
  ].join('\n')],
  clients: [
    { id: 'curl', name: 'curl', runAs: `\`curl -sS --http2 --max-time ${H2C_TIMEOUT_S} -o /dev/null -w '%{http_version} %{http_code} %{size_download}' URL\`` },
    { id: 'nghttp', name: 'nghttp', runAs: `\`nghttp -nvu --timeout=${H2C_TIMEOUT_S} URL\`` },
    { id: 'python', name: 'Python h2', runAs: '`scripts/scorecard/h2c-python-client.py`: `initiate_upgrade_connection`, the 101, then stream 1 through h2' },
  ],
  rowTitle: 'path',
  extraColumns: [],
  rowPrefix: 'http://HOST',
};

export async function curlH2c(base: string, path: string): Promise<string> {
  const args = ['-sS', '--http2', '-o', '/dev/null', '--max-time', String(H2C_TIMEOUT_S), '-w', '%{http_version} %{http_code} %{size_download}', `${base}${path}`];
  return describeCurlH2(await runProgram('curl', args, '', (H2C_TIMEOUT_S + 5) * 1000));
}

export async function nghttpH2c(base: string, path: string): Promise<string> {
  return describeNghttp(await runProgram('nghttp', ['-nvu', `--timeout=${H2C_TIMEOUT_S}`, `${base}${path}`], '', (H2C_TIMEOUT_S + 5) * 1000));
}

interface PythonLine {
  readonly upgrade: number | null;
  readonly status: number | null;
  readonly bytes: number;
  readonly error: string | null;
}

const PYTHON_CLIENT = fileURLToPath(new URL('../../../scripts/scorecard/h2c-python-client.py', import.meta.url));

/** One Python process for every path; a cell per path: `101, 200, N bytes` or the upgrade's status, then h2's error. */
export function pythonH2c(base: string, paths: readonly string[]): Promise<string[]> {
  return new Promise((resolve) => {
    const timeout = (H2C_TIMEOUT_S + 5) * 1000 * paths.length;
    execFile(H2_PYTHON, [PYTHON_CLIENT, String(H2C_TIMEOUT_S), ...paths.map((p) => `${base}${p}`)], { timeout, killSignal: 'SIGKILL' }, (_error, stdout) => {
      const lines = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as PythonLine);
      resolve(paths.map((_, i) => {
        const line = lines[i];
        if (line === undefined) return 'no answer';
        const parts = [String(line.upgrade)];
        if (line.status !== null) parts.push(`${line.status}, ${line.bytes} bytes`);
        if (line.error !== null) parts.push(line.error);
        return parts.join(', ');
      }));
    });
  });
}

async function versions(): Promise<Record<string, string>> {
  const h2 = await runProgram(H2_PYTHON, ['-c', 'import sys, h2; print("h2 %s, Python %s" % (h2.__version__, sys.version.split()[0]))']);
  return {
    ...(await curlAndNghttpVersions()),
    python: h2.code === 0 ? h2.out.trim() : 'not installed',
  };
}

/** Starts chaos in this process, runs every row, stops it. */
export async function runH2cTable(): Promise<MatrixResult> {
  const config = loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_GENERAL: '0', MAX_CONNECTIONS_PER_IP: '0' });
  const store = new MemoryStore();
  const chaos = new ChaosServer({ config, logger: createLogger('chaos', 'silent'), registry: serviceRegistries().chaos, store, idleTimeoutMs: 2000 });
  try {
    const port = await chaos.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;
    const python = await pythonH2c(base, H2C_PATHS);
    const rows = await inPool(H2C_PATHS, 4, async (path) => ({
      id: path,
      cells: [await curlH2c(base, path), await nghttpH2c(base, path), python[H2C_PATHS.indexOf(path)] ?? 'no answer'].map((c) => c.split(String(port)).join('PORT')),
    }));
    return { versions: await versions(), rows };
  } finally {
    await chaos.shutdown(0);
    await store.close();
  }
}
