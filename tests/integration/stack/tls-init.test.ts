// `chaos-endpoint-service tls-init <dir>` (docs/deploy.md, Kubernetes): the
// bin makes the TLS test PKI with the services' own code, and a TLS_DIR that
// holds its files serves TLS while it cannot be written (the Kubernetes
// Secret's case), run as an unprivileged user (this test runs as root, which
// any file mode lets write). A TLS_DIR holding part of the files, or none and
// unwritable, stops start-up with a message saying what to do.
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { PKI_FILES, PKI_FOLDER } from '../../../shared/tls/pki.js';
import { DIST, freePort, waitForPort } from '../../helpers/process.js';

const BIN = join(DIST, 'services', 'cli.js');
/** An unprivileged user (nobody): a directory without write bits is read-only to it. */
const UNPRIVILEGED = ['--reuid=65534', '--regid=65534', '--clear-groups'];

interface Ran {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

function runBin(args: readonly string[], env: Readonly<Record<string, string>> = {}, asNobody = false, timeoutMs = 60_000): Promise<Ran> {
  const [cmd, argv] = asNobody ? ['setpriv', [...UNPRIVILEGED, process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]];
  return new Promise((resolve) => {
    execFile(cmd as string, argv as string[], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, timeout: timeoutMs, encoding: 'utf8' }, (error, out, err) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, out, err });
    });
  });
}

function run(cmd: string, args: readonly string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(cmd, args, { encoding: 'utf8', timeout: 30_000 }, (error, out, err) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, out, err }));
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'chaos-tls-init-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
// The unprivileged user must reach the copies below.
chmodSync(scratch, 0o755);
const made = join(scratch, 'made');

/** A directory as a Secret mount gives it: <dir>/ca-v1/<file> for the files named, nothing writable to nobody. */
function readOnlyCopy(name: string, files: readonly string[]): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, PKI_FOLDER), { recursive: true });
  for (const file of files) {
    copyFileSync(join(made, PKI_FOLDER, file), join(dir, PKI_FOLDER, file));
    chmodSync(join(dir, PKI_FOLDER, file), 0o444);
  }
  chmodSync(join(dir, PKI_FOLDER), 0o555);
  chmodSync(dir, 0o555);
  return dir;
}

t.test('tls-init makes every file of the PKI, 0600, and reads the same one the second time', async (t) => {
  const first = await runBin(['tls-init', made]);
  t.equal(first.code, 0, `exit 0 ${first.err}`);
  for (const file of PKI_FILES) t.equal(statSync(join(made, PKI_FOLDER, file)).mode & 0o777, 0o600, `${file}: 0600`);
  t.match(first.out, `kubectl -n chaos-endpoints create secret generic chaos-tls --from-file=${join(made, PKI_FOLDER)}`, 'it prints the Secret command');
  const root = readFileSync(join(made, PKI_FOLDER, 'root.pem'), 'utf8');
  const text = await run('openssl', ['x509', '-noout', '-subject', '-ext', 'nameConstraints', '-in', join(made, PKI_FOLDER, 'root.pem')]);
  t.match(text.out, /Chaos test root for tls\.localhost/);
  t.match(text.out, /Permitted:\s+DNS:tls\.localhost/, 'name-constrained to TLS_BASE');
  const again = await runBin(['tls-init', made]);
  t.equal(again.code, 0);
  t.equal(readFileSync(join(made, PKI_FOLDER, 'root.pem'), 'utf8'), root, 'a second run keeps the root');
  const wrongBase = await runBin(['tls-init', made], { TLS_BASE: 'tls.example.test' });
  t.equal(wrongBase.code, 1, 'a PKI made for another TLS_BASE is refused');
  t.match(wrongBase.err, /made for another TLS_BASE/);
  const usage = await runBin(['tls-init']);
  t.equal(usage.code, 2, 'no directory: usage, exit 2');
  t.match(usage.err, /Usage: chaos-endpoint-service tls-init <dir>/);
});

t.test('a read-only TLS_DIR holding every file serves TLS with that root', async (t) => {
  const dir = readOnlyCopy('complete', PKI_FILES);
  const [chaos, control, bots, tlsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const env = { TLS_DIR: dir, CHAOS_PORT: String(chaos), CONTROL_PORT: String(control), BOTS_PORT: String(bots), CHAOS_TLS_PORT: String(tlsPort), METRICS_PORT: '0' };
  const write = await run('setpriv', [...UNPRIVILEGED, 'touch', join(dir, PKI_FOLDER, 'probe')]);
  t.not(write.code, 0, `the copy is read-only to the service's user (${write.err.trim()})`);
  const [cmd, ...argv] = ['setpriv', ...UNPRIVILEGED, process.execPath, BIN];
  const child = execFile(cmd as string, argv, { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, encoding: 'utf8' });
  let err = '';
  child.stderr?.on('data', (d: string) => (err += d));
  t.teardown(() => child.kill('SIGKILL'));
  await waitForPort(tlsPort, 30_000);
  const rootFile = join(made, PKI_FOLDER, 'root.pem');
  const host = 'good.tls.localhost';
  const curl = await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '--cacert', rootFile, '--resolve', `${host}:${tlsPort}:127.0.0.1`, `https://${host}:${tlsPort}/status/200`]);
  t.equal(curl.code, 0, `curl trusting the made root: ${curl.err.trim()}${err}`);
  t.equal(curl.out, '200');
  child.kill('SIGTERM');
});

t.test('a TLS_DIR holding part of the PKI, or none and read-only, stops start-up with a message', async (t) => {
  const partial = readOnlyCopy('partial', PKI_FILES.filter((f) => f !== 'intermediate-key.pem'));
  const ports = { CHAOS_PORT: '0', CONTROL_PORT: '0', BOTS_PORT: '0', CHAOS_TLS_PORT: '0', METRICS_PORT: '0' };
  const part = await runBin([], { TLS_DIR: partial, ...ports }, true);
  t.equal(part.code, 1, 'exit 1');
  t.match(part.err, /incomplete test PKI: .*but not intermediate-key\.pem/, `names the missing file: ${part.err.trim()}`);
  t.match(part.err, /tls-init <dir>/, 'and how to make them');
  const empty = readOnlyCopy('empty', []);
  const none = await runBin([], { TLS_DIR: empty, ...ports }, true);
  t.equal(none.code, 1, 'exit 1');
  t.match(none.err, /holds no test PKI \(ca-v1\/\) and cannot be written \(EACCES\): make one with `chaos-endpoint-service tls-init <dir>`/, none.err.trim());
});
