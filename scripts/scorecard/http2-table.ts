// The client scorecard's HTTP/2 table (docs/clients.md): every chaos /h2/* lie
// (each mode of each endpoint, from the registry; /h2/upgrade apart: it is an
// HTTP/1.1 upgrade) met by curl, nghttp, Node's http2.connect and httpx by
// prior knowledge on the chaos port, and by Chromium over TLS with ALPN h2 on
// the `good` host; then the same path on the control twin, by the four
// prior-knowledge clients. Each cell is what the run said (scripts/scorecard/h2-clients.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ChaosServer } from '../../services/chaos/server.js';
import { TlsListener } from '../../services/chaos/tls/listener.js';
import { serviceRegistries } from '../../services/registries.js';
import { loadConfig } from '../../shared/config/config.js';
import { createLogger } from '../../shared/config/log.js';
import { HttpService } from '../../shared/http/http-service.js';
import { modeParamOf, type AnyEndpoint } from '../../shared/registry/registry.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { TlsMaterial } from '../../shared/tls/material.js';
import { chromiumH2, curlAndNghttpVersions, curlH2, H2_PYTHON, httpxH2, nghttpH2, nodeH2, type H2Reach } from './h2-clients.js';
import type { MatrixResult, MatrixRow, MatrixSpec } from './markdown.js';
import { inPool } from './pool.js';
import { runProgram } from './tls-clients.js';

export const H2_SPEC: MatrixSpec = {
  heading: 'HTTP/2: what clients do with each lie',
  intro: [[
    'Each [HTTP/2 lie](http2.md) (every mode of every `/h2/*` endpoint but the h2c upgrade) met by curl, nghttp,',
    'Node\'s `http2.connect` and httpx by prior knowledge on the chaos port, and by Chromium over TLS on the',
    '`good` host (ALPN h2: a browser speaks HTTP/2 only so, trusting the published root). A cell is the',
    'client\'s own words: curl\'s exit code and message, nghttp\'s "not processed" or the status it read,',
    'Node\'s status, error code, RST code and GOAWAY debug data, httpx\'s exception, Chromium\'s net error',
    `(after the status when the body failed); a held lie ends in the client's ${10} s timeout. The last column`,
    'is the same path on the control twin (node:http2) by the four prior-knowledge clients: what a',
    'well-formed answer gives.',
  ].join('\n')],
  clients: [
    { id: 'curl', name: 'curl', runAs: '`curl -sS --http2-prior-knowledge --max-time 10 -o /dev/null -w \'%{http_version} %{http_code} %{size_download}\' URL`' },
    { id: 'nghttp', name: 'nghttp', runAs: '`nghttp -nv --timeout=10 URL`' },
    { id: 'node', name: 'Node http2', runAs: '`http2.connect(origin).request({\':path\': PATH})`, read to the end (10 s)' },
    { id: 'httpx', name: 'httpx', runAs: '`httpx.Client(http1=False, http2=True, timeout=10).stream(\'GET\', URL)`, read to the end' },
    { id: 'chromium', name: 'Chromium', runAs: 'headless (playwright-core) `page.goto(https://good.tls.localhost:PORT/PATH)`, the root in an NSS database made with `certutil`' },
  ],
  rowTitle: 'lie',
  extraColumns: ['control twin (curl, nghttp, Node, httpx)'],
  rowPrefix: 'http://HOST',
};

/** The table's rows: each /h2/* chaos endpoint served over HTTP/2, once per mode (or once). */
export function h2LiePaths<C>(endpoints: readonly AnyEndpoint<C>[]): string[] {
  return endpoints
    .filter((e) => e.category === 'http2' && e.path.startsWith('/h2/') && e.path !== '/h2/upgrade')
    .flatMap((e) => {
      const param = modeParamOf(e);
      const accepted = param === undefined ? undefined : e.params[param]?.accepted;
      return Array.isArray(accepted) ? accepted.map((mode) => `${e.path}?${param}=${String(mode)}`) : [e.path];
    });
}

async function versions(browser: Browser | undefined): Promise<Record<string, string>> {
  const httpx = await runProgram(H2_PYTHON, ['-c', 'import sys, httpx, h2; print("httpx %s, h2 %s, Python %s" % (httpx.__version__, h2.__version__, sys.version.split()[0]))']);
  return {
    ...(await curlAndNghttpVersions()),
    node: `Node ${process.versions.node} (nghttp2 ${process.versions.nghttp2})`,
    httpx: httpx.code === 0 ? httpx.out.trim() : 'not installed',
    chromium: browser?.version() ?? 'not installed',
  };
}

export interface H2TableOptions {
  /** Starts Chromium trusting `root` (undefined: the column says so). */
  readonly chromium?: (rootFile: string, home: string) => Promise<Browser>;
  /** Rows at once (each row's five clients run one after another). */
  readonly width?: number;
}

/** Starts chaos (plain and TLS) and control in this process, runs every row, stops them. */
export async function runH2Table(options: H2TableOptions = {}): Promise<MatrixResult> {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-scorecard-h2-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', TLS_DIR: dir, RATE_LIMIT_GENERAL: '0', MAX_CONNECTIONS_PER_IP: '0' });
  const registries = serviceRegistries();
  const store = new MemoryStore();
  const chaos = new ChaosServer({ config, logger: createLogger('chaos', 'silent'), registry: registries.chaos, store, idleTimeoutMs: 2000 });
  const control = new HttpService({ host: 'control', config, logger: createLogger('control', 'silent'), registry: registries.control, store });
  let listener: TlsListener | undefined;
  let browser: Browser | undefined;
  try {
    const port = await chaos.listen(0, '127.0.0.1');
    const controlPort = await control.listen(0, '127.0.0.1');
    const material = await TlsMaterial.load(config);
    listener = new TlsListener(chaos, material, createLogger('chaos', 'silent'));
    const tlsPort = await listener.listen(0, '127.0.0.1');
    const rootFile = join(dir, 'root.pem');
    writeFileSync(rootFile, material.pki.root.certPem);
    browser = await options.chromium?.(rootFile, mkdtempSync(join(dir, 'home-')));
    const name = `good.${config.tls.base}`;
    const plain: H2Reach = { origin: `http://127.0.0.1:${port}` };
    const twin: H2Reach = { origin: `http://127.0.0.1:${controlPort}` };
    const tls: H2Reach = { origin: `https://${name}:${tlsPort}`, tls: { rootFile, rootPem: material.pki.root.certPem, name, port: tlsPort } };
    const steady = (cell: string): string => cell.split(String(tlsPort)).join('PORT').split(String(port)).join('PORT');
    const rows: MatrixRow[] = await inPool(h2LiePaths(registries.chaos.endpoints), options.width ?? 4, async (path) => {
      const cells = [
        await curlH2(plain, path),
        await nghttpH2(plain, path),
        await nodeH2(plain, path),
        (await httpxH2(plain, [path]))[0] ?? '',
        browser ? await chromiumH2(browser, `${tls.origin}${path}`) : 'not installed',
      ];
      const twinCells = [await curlH2(twin, path), await nghttpH2(twin, path), await nodeH2(twin, path), (await httpxH2(twin, [path]))[0] ?? ''];
      const passed = twinCells.every((c) => /^(exit 0, HTTP\/2 200|status 200|200, \d+ bytes$|HTTP\/2 200)/.test(c));
      const twinCell = passed ? 'all four: 200, whole body' : twinCells.join('; ');
      return { id: path, cells: [...cells, twinCell].map(steady) };
    });
    return { versions: await versions(browser), rows };
  } finally {
    await browser?.close();
    await listener?.close();
    await chaos.shutdown(0);
    await control.shutdown(0);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
