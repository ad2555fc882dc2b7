// The TLS clients, driven one way for tests/integration/tls.test.ts and for
// the client scorecard's TLS table (scripts/scorecard/tls-table.ts): a program
// run (curl, openssl s_client, certutil), Node's tls.connect, Python's ssl in
// a subprocess, and Chromium trusting the root through an NSS database made
// with certutil. Each asks for /status/200 past the handshake.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import tls from 'node:tls';
import type { Browser } from 'playwright-core';

export interface Ran {
  /** The exit code; -1 when the program did not exit by itself (killed, or not found). */
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs a program with `input` on its stdin, killed after `timeoutMs`. */
export function runProgram(cmd: string, args: readonly string[], input = '', timeoutMs = 30_000): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }, (error, out, err) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, out, err });
    });
    child.stdin?.end(input);
  });
}

/** The request every TLS client sends past its handshake. */
export const TLS_PROBE_REQUEST = 'GET /status/200 HTTP/1.1\r\nHost: chaos.test:8080\r\nConnection: close\r\n\r\n';

/** What Node's tls.connect saw: its error (code and message), the leaf's subject OU, and the bytes it read. */
export interface NodeTlsSeen {
  readonly code: string | undefined;
  readonly message: string | undefined;
  readonly ou: unknown;
  readonly head: string;
}

/** tls.connect to 127.0.0.1:`port` naming `servername`; sends the probe request once connected. */
export function nodeTlsConnect(port: number, servername: string, options: tls.ConnectionOptions = {}): Promise<NodeTlsSeen> {
  return new Promise((done) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ...options }, () => socket.write(TLS_PROBE_REQUEST));
    let head = '';
    let ou: unknown;
    socket.setTimeout(20_000, () => socket.destroy(Object.assign(new Error('no answer in 20 s'), { code: 'TIMEOUT' })));
    socket.on('secureConnect', () => (ou = socket.getPeerCertificate().subject?.OU));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (head += chunk));
    socket.on('error', (error: Error & { code?: string }) => done({ code: error.code, message: error.message, ou, head }));
    socket.on('close', () => done({ code: undefined, message: undefined, ou, head }));
  });
}

// The same request as TLS_PROBE_REQUEST.
/** Python's ssl with the default context trusting `cafile` (and checking the CRL `crl`, when given): "OK <status line>" or "ERR <error>". */
const PYTHON_TLS_CLIENT = `
import socket, ssl, sys
host, port, cafile, crl = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ctx = ssl.create_default_context(cafile=cafile)
if crl:
    ctx.load_verify_locations(crl)
    ctx.verify_flags |= ssl.VERIFY_CRL_CHECK_LEAF
try:
    with socket.create_connection(('127.0.0.1', port), timeout=20) as raw:
        with ctx.wrap_socket(raw, server_hostname=host, suppress_ragged_eofs=False) as s:
            s.sendall(b'GET /status/200 HTTP/1.1\\r\\nHost: chaos.test:8080\\r\\nConnection: close\\r\\n\\r\\n')
            data = b''
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            print('OK ' + data.split(b'\\r\\n')[0].decode())
except Exception as e:
    print('ERR ' + str(e))
`;

export function pythonTls(python: string, servername: string, port: number, cafile: string, crl = ''): Promise<Ran> {
  return runProgram(python, ['-c', PYTHON_TLS_CLIENT, servername, String(port), cafile, crl]);
}

/** Headless Chromium trusting `rootFile` through an NSS database under `home` (made here with certutil), every *.localhost on loopback. */
export async function chromiumTrusting(rootFile: string, home: string, executablePath = '/usr/bin/chromium'): Promise<Browser> {
  const nssdb = join(home, '.pki', 'nssdb');
  mkdirSync(nssdb, { recursive: true });
  const made = await runProgram('certutil', ['-d', `sql:${nssdb}`, '-N', '--empty-password']);
  if (made.code !== 0) throw new Error(`certutil -N: ${made.err}`);
  const imported = await runProgram('certutil', ['-d', `sql:${nssdb}`, '-A', '-t', 'C,,', '-n', 'chaos-test-root', '-i', rootFile]);
  if (imported.code !== 0) throw new Error(`certutil -A: ${imported.err}`);
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, timeout: 60_000, env: { ...process.env, HOME: home }, args: ['--host-resolver-rules=MAP *.localhost 127.0.0.1'] });
}

/** Navigates a fresh page to `url`: "ok" for a 200, "status N", or Chromium's net error. */
export async function chromiumGoto(browser: Browser, url: string): Promise<string> {
  // A page per navigation: an error page left by one interrupts the next.
  const page = await browser.newPage();
  try {
    const response = await page.goto(url, { timeout: 20_000 });
    return response?.status() === 200 ? 'ok' : `status ${String(response?.status())}`;
  } catch (error) {
    return /net::ERR_[A-Z0-9_]+/.exec(error instanceof Error ? error.message : String(error))?.[0] ?? String(error);
  } finally {
    await page.close();
  }
}
