// The client scorecard's TLS table (docs/clients.md): every TLS mode's host
// (docs/tls.md) met by curl, openssl s_client, Node's tls.connect, Python's
// ssl and Chromium (scripts/scorecard/tls-clients.ts), each trusting the
// published test root, asking for /status/200. Each cell is what the run
// said, reduced by describe* below; nothing is typed in.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ChaosServer } from '../../services/chaos/server.js';
import { TlsListener } from '../../services/chaos/tls/listener.js';
import { serviceRegistries } from '../../services/registries.js';
import { loadConfig } from '../../shared/config/config.js';
import { createLogger } from '../../shared/config/log.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { TlsMaterial } from '../../shared/tls/material.js';
import { TLS_MODES, tlsHostOf, type TlsMode } from '../../shared/tls/modes.js';
import type { MatrixResult, MatrixRow, MatrixSpec } from './markdown.js';
import { inPool } from './pool.js';
import { chromiumGoto, chromiumTrusting, nodeTlsConnect, pythonTls, runProgram, type Ran } from './tls-clients.js';

export const TLS_CLIENT_IDS = ['curl', 'openssl', 'node', 'python', 'chromium'] as const;
export type TlsClientId = (typeof TLS_CLIENT_IDS)[number];

export const TLS_SPEC: MatrixSpec = {
  heading: 'TLS: what clients do with each mode',
  intro: [[
    'Each [TLS mode](tls.md) met by each client on the mode\'s host (`https://<mode>.tls.localhost:PORT/status/200`,',
    'the name resolved to loopback), every client trusting the published test root and nothing else, with its',
    'default settings otherwise: no client identity for `client-cert`, no CRL for `revoked`, the client\'s own ALPN',
    'offer. A cell is the client\'s own error (curl\'s exit code and message, openssl\'s verify result and handshake',
    'error, Node\'s error code and message, Python\'s exception text, Chromium\'s net error), or the status line it',
    'read when it accepted the host. `good` is the twin: every client should accept it.',
  ].join('\n')],
  clients: [
    { id: 'curl', name: 'curl', runAs: '`curl -sS -o /dev/null --max-time 20 --cacert root.pem --resolve HOST:PORT:127.0.0.1 URL`' },
    { id: 'openssl', name: 'openssl s_client', runAs: '`openssl s_client -connect 127.0.0.1:PORT -servername HOST -verify_hostname HOST -CAfile root.pem < /dev/null`: it reports a failed verification and goes on' },
    { id: 'node', name: 'Node tls', runAs: '`tls.connect({host: \'127.0.0.1\', port, servername: HOST, ca: root})`, then a GET' },
    { id: 'python', name: 'Python ssl', runAs: '`ssl.create_default_context(cafile=root.pem).wrap_socket(sock, server_hostname=HOST, suppress_ragged_eofs=False)`, then a GET read to the close' },
    { id: 'chromium', name: 'Chromium', runAs: 'headless (playwright-core) `page.goto(URL)`, the root in an NSS database made with `certutil`' },
  ],
  rowTitle: 'mode',
  extraColumns: [],
};

/** A message the same from one run to the next: the listener's port replaced, and OpenSSL's thread id before `:error:`. */
const steady = (text: string, port: number): string =>
  text.split(String(port)).join('PORT').replace(/\b[0-9A-F]{8,16}:error:/g, 'error:').replace(/\s+/g, ' ').trim();

export function describeCurl(ran: Ran): string {
  if (ran.code === 0) return `exit 0, ${ran.out.trim()}`;
  const said = /curl: \(\d+\) (.*)/.exec(ran.err)?.[1];
  return `exit ${ran.code}${said ? `: ${said}` : ''}`;
}

/** openssl s_client: the handshake errors it printed (their reason), and its verify result. */
export function describeOpenssl(ran: Ran): string {
  const said = `${ran.out}\n${ran.err}`;
  const errors = [...new Set([...said.matchAll(/:error:[0-9A-Fa-f]+:[^:\n]*:[^:\n]*:([^:\n]+)/g)].map((m) => (m[1] as string).trim()))];
  const verify = [...said.matchAll(/Verify return code: (.+)/g)].at(-1)?.[1];
  const noCert = /no peer certificate available/.test(said);
  const parts = [
    ...(errors.length ? [`handshake error: ${errors.join(', ')}`] : []),
    ...(noCert ? ['no peer certificate'] : []),
    ...(verify !== undefined ? [`Verify return code: ${verify}`] : []),
  ];
  return parts.length ? parts.join('; ') : `exit ${ran.code}`;
}

export function describeNode(seen: Awaited<ReturnType<typeof nodeTlsConnect>>): string {
  if (seen.code !== undefined || seen.message !== undefined) return `${seen.code ?? 'error'}: ${seen.message ?? ''}`;
  const line = seen.head.split('\r\n')[0] ?? '';
  return line === '' ? 'connected, no response' : `connected, "${line}"`;
}

export function describePython(ran: Ran): string {
  const out = ran.out.trim();
  if (out.startsWith('OK ')) return `connected, "${out.slice(3)}"`;
  if (out.startsWith('ERR ')) return out.slice(4);
  return `exit ${ran.code}: ${ran.err.trim().split('\n').at(-1) ?? ''}`;
}

export interface TlsRunOptions {
  readonly modes?: readonly TlsMode[];
  readonly clients?: readonly TlsClientId[];
  /** Launches Chromium trusting the root (undefined: the Chromium column says not installed). */
  readonly chromium?: (rootFile: string, home: string) => Promise<Browser>;
  readonly python?: string;
}

/** Starts a chaos server with a TLS listener on a fresh test PKI, and runs the clients against every mode. */
export async function runTlsTable(options: TlsRunOptions = {}): Promise<MatrixResult> {
  const modes = options.modes ?? TLS_MODES;
  const clients = options.clients ?? TLS_CLIENT_IDS;
  const python = options.python ?? 'python3';
  const dir = mkdtempSync(join(tmpdir(), 'scorecard-tls-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_GENERAL: '0', MAX_CONNECTIONS_PER_IP: '0', TLS_DIR: join(dir, 'pki'), PUBLIC_BASE_URL: 'http://chaos.test:8080' });
  const store = new MemoryStore();
  const chaos = new ChaosServer({ config, logger: createLogger('chaos', 'silent'), registry: serviceRegistries().chaos, store });
  const material = await TlsMaterial.load(config);
  const listener = new TlsListener(chaos, material, createLogger('chaos', 'silent'));
  const port = await listener.listen(0, '127.0.0.1');
  const rootFile = join(dir, 'root.pem');
  writeFileSync(rootFile, material.pki.root.certPem);
  let browser: Browser | undefined;
  try {
    if (clients.includes('chromium') && options.chromium) browser = await options.chromium(rootFile, join(dir, 'home'));
    const host = (mode: TlsMode): string => tlsHostOf(mode, config.tls.base);
    const url = (mode: TlsMode): string => `https://${host(mode)}:${port}/status/200`;
    const cellOf = async (client: TlsClientId, mode: TlsMode): Promise<string> => {
      switch (client) {
        case 'curl':
          return describeCurl(await runProgram('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '20', '--cacert', rootFile, '--resolve', `${host(mode)}:${port}:127.0.0.1`, url(mode)]));
        case 'openssl':
          return describeOpenssl(await runProgram('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', host(mode), '-verify_hostname', host(mode), '-CAfile', rootFile]));
        case 'node':
          return describeNode(await nodeTlsConnect(port, host(mode), { ca: material.pki.root.certPem }));
        case 'python':
          return describePython(await pythonTls(python, host(mode), port, rootFile));
        case 'chromium': {
          if (!browser) return 'not installed';
          const said = await chromiumGoto(browser, url(mode));
          return said === 'ok' ? 'accepted, 200' : said;
        }
      }
    };
    // Chromium's navigations a few at a time; the other clients are short processes or sockets.
    const jobs = modes.flatMap((mode) => clients.map((client) => ({ mode, client })));
    const cells = new Map<string, string>();
    await Promise.all([
      inPool(jobs.filter((j) => j.client !== 'chromium'), 6, async (j) => cells.set(`${j.mode} ${j.client}`, steady(await cellOf(j.client, j.mode), port))),
      inPool(jobs.filter((j) => j.client === 'chromium'), 3, async (j) => cells.set(`${j.mode} ${j.client}`, steady(await cellOf(j.client, j.mode), port))),
    ]);
    const rows = modes.map((mode): MatrixRow => ({ id: mode, cells: clients.map((client) => cells.get(`${mode} ${client}`) ?? '') }));
    const versions: Record<string, string> = {};
    for (const client of clients) versions[client] = await versionOf(client, browser, python);
    return { versions, rows };
  } finally {
    await browser?.close();
    await listener.close();
    await chaos.shutdown(0);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function versionOf(client: TlsClientId, browser: Browser | undefined, python: string): Promise<string> {
  switch (client) {
    case 'curl': {
      const first = (await runProgram('curl', ['--version'])).out.split('\n')[0] ?? '';
      const curl = /^curl \S+/.exec(first)?.[0];
      return curl ? `${curl}, ${/OpenSSL\/\S+/.exec(first)?.[0] ?? 'TLS library unknown'}` : 'not installed';
    }
    case 'openssl': {
      const ran = await runProgram('openssl', ['version']);
      return ran.code === 0 ? (/^OpenSSL \S+/.exec(ran.out)?.[0] ?? ran.out.trim()) : 'not installed';
    }
    case 'node':
      return `Node.js ${process.version}, OpenSSL ${process.versions.openssl ?? '?'}`;
    case 'python': {
      const ran = await runProgram(python, ['-c', 'import sys, ssl; print("Python %s, %s" % (sys.version.split()[0], ssl.OPENSSL_VERSION))']);
      return ran.code === 0 ? ran.out.trim() : 'not installed';
    }
    case 'chromium':
      return browser ? `Chromium ${browser.version()} (BoringSSL)` : 'not installed';
  }
}

export { chromiumTrusting };
