// Determinism across processes: two separately started control services (as
// replicas, or one before and one after a restart) serve identical bytes for
// the same /infinite URL, and both equal this process's generator.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { renderInfinite } from '../../../services/control/infinite/index.js';
import type { ReadyMessage } from '../../../shared/runtime/run.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';

const MAIN = fileURLToPath(new URL('../../../services/control/main.js', import.meta.url));

/** Starts `node dist/services/control/main.js` on a free port (CONTROL_PORT=0; the port comes back in the ready message). */
function startControl(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const child: ChildProcess = fork(MAIN, [], {
    env: { PATH: process.env.PATH ?? '', CONTROL_PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_INFINITE: '0', METRICS_PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`control did not start in 15 s: ${stderr}`)), 15_000);
    child.on('message', (message: ReadyMessage) => {
      if (message?.type !== 'ready') return;
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`control exited with ${code}: ${stderr}`));
    });
  });
}

async function body(port: number, path: string): Promise<{ status: number; truncated: string | undefined; bytes: Buffer }> {
  const r = await rawExchange(port, get(path), { until: completeByLength });
  const head = parseHead(r.data);
  return { status: head.status, truncated: head.header('x-not-infinite-truncated'), bytes: head.rest.subarray(0, Number(head.header('content-length'))) };
}

const URLS: readonly [string, 'json' | 'html', 'users' | 'products' | 'posts' | 'comments', string, { links?: number; fields?: string[] }][] = [
  ['/infinite/html/users/alice', 'html', 'users', 'alice', {}],
  ['/infinite/json/users/alice', 'json', 'users', 'alice', {}],
  ['/infinite/html/products/blue/kettle?links=4', 'html', 'products', 'blue/kettle', { links: 4 }],
  ['/infinite/json/posts/alice/3?fields=title,id,mood', 'json', 'posts', 'alice/3', { fields: ['title', 'id', 'mood'] }],
  ['/infinite/html/comments/alice/3/2', 'html', 'comments', 'alice/3/2', {}],
  ['/infinite/json/comments/a%20b/c9', 'json', 'comments', 'a%20b/c9', {}],
  ['/infinite/html/posts/tail-25', 'html', 'posts', 'tail-25', {}],
  ['/infinite/json/users/tail-15', 'json', 'users', 'tail-15', {}],
];

t.test('two processes serve the same bytes for the same URL', async (t) => {
  const [a, b] = await Promise.all([startControl(t), startControl(t)]);
  t.not(a, b, 'two services on two ports');
  let cut = 0;
  for (const [path, format, type, tail, options] of URLS) {
    const [x, y] = await Promise.all([body(a, path), body(b, path)]);
    t.equal(x.status, 200, path);
    t.equal(x.bytes.toString('latin1'), y.bytes.toString('latin1'), `${path}: identical bytes`);
    t.equal(x.truncated, y.truncated);
    const local = renderInfinite(format, type, tail, options);
    t.equal(x.bytes.toString('latin1'), local.body.toString('latin1'), `${path}: equal to this process's generator`);
    if (x.truncated === 'true') cut++;
  }
  t.equal(cut, 2, 'the list includes two cut bodies');
});
