// The HTTP/2 clients, driven one way for tests/integration/http2/client-cells.test.ts
// and for the client scorecard's HTTP/2 table (scripts/scorecard/http2-table.ts):
// curl, nghttp (Debian nghttp2-client), Node's http2.connect, Python httpx with
// h2 (Debian python3-httpx, python3-h2; one process for many URLs) and
// Chromium (over TLS with ALPN h2: a browser speaks HTTP/2 only so). Each
// returns a short cell: what the client reported, in its own words.
import { execFile } from 'node:child_process';
import type http2 from 'node:http2';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { h2Get, type H2Outcome } from './h2-node.js';
import { runProgram, type Ran } from './tls-clients.js';

/** Every client's own deadline for one request (a held lie ends in the client's timeout). */
export const H2_CLIENT_TIMEOUT_S = 10;

/** How a client reaches the server: prior knowledge on a plain port, or TLS (the root trusted, the name resolved to loopback). */
export interface H2Reach {
  /** `http://127.0.0.1:PORT` or `https://NAME:PORT`. */
  readonly origin: string;
  /** Over TLS: the published root's file and PEM, and the name to resolve to 127.0.0.1. */
  readonly tls?: { readonly rootFile: string; readonly rootPem: string; readonly name: string; readonly port: number };
}

export function describeCurlH2(ran: Ran): string {
  if (ran.code === 0) return `exit 0, HTTP/${ran.out.trim().replace(' ', ' ').replace(/ (\d+)$/, ', $1 bytes')}`;
  const said = /curl: \(\d+\) (.*)/.exec(ran.err)?.[1];
  return `exit ${ran.code}${said ? `: ${said.replace(/ \(err \d+\)/, '').replace(/stream \d+/, 'stream N')}` : ''}`;
}

export async function curlH2(reach: H2Reach, path: string): Promise<string> {
  const how = reach.tls
    ? ['--cacert', reach.tls.rootFile, '--resolve', `${reach.tls.name}:${reach.tls.port}:127.0.0.1`]
    : ['--http2-prior-knowledge'];
  const ran = await runProgram('curl', ['-sS', '-o', '/dev/null', '--max-time', String(H2_CLIENT_TIMEOUT_S), '-w', '%{http_version} %{http_code} %{size_download}', ...how, `${reach.origin}${path}`], '', (H2_CLIENT_TIMEOUT_S + 5) * 1000);
  return describeCurlH2(ran);
}

/** nghttp -nv: "not processed" when it says so, else the status it read; its first error line either way. */
export function describeNghttp(ran: Ran): string {
  const said = `${ran.out}\n${ran.err}`;
  const status = /:status: (\d+)/.exec(said)?.[1];
  const error = /\[ERROR\] (.*)/.exec(said)?.[1]?.trim();
  const goaway = /recv GOAWAY frame[\s\S]*?error_code=(\w+)/.exec(said)?.[1];
  const parts = [/not processed/.test(said) ? 'not processed' : status ? `status ${status}` : `exit ${ran.code}, no status`];
  if (goaway !== undefined && goaway !== 'NO_ERROR(0x00)') parts.push(`GOAWAY ${goaway.replace(/\(0x[0-9a-f]+\)/, '')}`);
  if (error) parts.push(error.replace(/stream_id=\d+/, 'stream N'));
  return parts.join('; ');
}

export async function nghttpH2(reach: H2Reach, path: string): Promise<string> {
  // nghttp has no --resolve: over TLS it goes to the address (no SNI: the no-sni mode), so the table uses it on the plain port.
  const ran = await runProgram('nghttp', ['-nv', `--timeout=${H2_CLIENT_TIMEOUT_S}`, `${reach.origin}${path}`], '', (H2_CLIENT_TIMEOUT_S + 5) * 1000);
  return describeNghttp(ran);
}

export function describeNode(out: H2Outcome): string {
  const parts: string[] = [];
  if (out.status !== undefined) parts.push(`${out.status}, ${out.body.length} bytes`);
  if (out.error !== undefined) parts.push(out.error);
  if (out.rstCode !== undefined && out.rstCode !== 0) parts.push(`rstCode ${out.rstCode}`);
  if (out.goaway !== undefined && out.goaway.data !== '') parts.push(`GOAWAY ${out.goaway.data}`);
  return parts.length > 0 ? parts.join(', ') : 'no answer';
}

export async function nodeH2(reach: H2Reach, path: string): Promise<string> {
  const connect: http2.SecureClientSessionOptions | undefined = reach.tls
    ? { ca: reach.tls.rootPem, servername: reach.tls.name }
    : undefined;
  return describeNode(await h2Get(reach.origin, path, { ms: H2_CLIENT_TIMEOUT_S * 1000, ...(connect ? { connect } : {}) }));
}

/** Debian's Python, which has python3-httpx and python3-h2 (a pyenv python3 on PATH may not). */
export const H2_PYTHON = '/usr/bin/python3';

/** curl's version with its nghttp2, and nghttp's: the first two columns of both HTTP/2 tables. */
export async function curlAndNghttpVersions(): Promise<{ curl: string; nghttp: string }> {
  const curl = await runProgram('curl', ['--version']);
  const nghttp = await runProgram('nghttp', ['--version']);
  return {
    curl: /^curl \S+.*?nghttp2\/\S+/.exec(curl.out)?.[0].replace(/ \(.*?\)/, '') ?? (curl.out.split('\n')[0] ?? ''),
    nghttp: nghttp.out.trim().split('\n')[0] ?? '',
  };
}
const HTTPX_CLIENT = fileURLToPath(new URL('../../../scripts/scorecard/h2-httpx-client.py', import.meta.url));

interface HttpxLine {
  readonly url: string;
  readonly status: number | null;
  readonly http_version: string | null;
  readonly bytes: number;
  readonly error: string | null;
}

export function describeHttpx(line: HttpxLine): string {
  if (line.error !== null) return line.status !== null ? `${line.status}, then ${line.error}` : line.error;
  return `${line.http_version ?? '?'} ${line.status ?? '?'}, ${line.bytes} bytes`;
}

/** httpx, one process for all `paths` (one client per URL, in turn); a cell per path. */
export function httpxH2(reach: H2Reach, paths: readonly string[]): Promise<string[]> {
  const urls = paths.map((path) => `${reach.origin}${path}`);
  // httpx's timeout is per read: a lie that trickles could outlast it, so the process has a deadline of its own.
  const deadlineS = (H2_CLIENT_TIMEOUT_S + 5) * Math.max(1, urls.length) + 5;
  return new Promise((resolve, reject) => {
    execFile(H2_PYTHON, [HTTPX_CLIENT, reach.tls?.rootFile ?? '-', String(H2_CLIENT_TIMEOUT_S), ...urls], { timeout: deadlineS * 1000, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const lines = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as HttpxLine);
      if (lines.length === 0 && error !== null && error.killed !== true) return reject(new Error(`httpx did not run: ${stderr || error.message}`));
      // Killed at the deadline: the URLs it did not finish say so.
      resolve(urls.map((_, i) => (lines[i] ? describeHttpx(lines[i]) : `no answer in ${deadlineS} s (killed)`)));
    });
  });
}

/** Chromium over TLS (ALPN h2): its net error, or the status and protocol the page got; `timeoutS` bounds the wait for the body's end. */
export async function chromiumH2(browser: Browser, url: string, timeoutS = H2_CLIENT_TIMEOUT_S): Promise<string> {
  const page = await browser.newPage();
  // The protocol the document came over, as Chromium's network panel shows it (CDP Network.responseReceived).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  let protocol = '?';
  cdp.on('Network.responseReceived', (event: { type: string; response: { protocol?: string } }) => {
    if (event.type === 'Document') protocol = event.response.protocol ?? '?';
  });
  try {
    // At the head ('commit'), then the body's end or its failure: a cut body is Chromium's error after the status.
    const response = await page.goto(url, { timeout: H2_CLIENT_TIMEOUT_S * 1000, waitUntil: 'commit' });
    if (response === null) return 'no response';
    const failure = await Promise.race([response.finished(), new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), timeoutS * 1000))]);
    if (failure !== null) return `${protocol} ${response.status()}, then ${typeof failure === 'string' ? failure : (/net::ERR_[A-Z0-9_]+/.exec(failure.message)?.[0] ?? failure.message)}`;
    const body = await response.body().catch(() => Buffer.alloc(0));
    return `${protocol} ${response.status()}, ${body.length} bytes`;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return /net::ERR_[A-Z0-9_]+/.exec(message)?.[0] ?? (/Timeout \d+ms exceeded/.test(message) ? 'timeout' : message.split('\n')[0] ?? message);
  } finally {
    await page.close();
  }
}
