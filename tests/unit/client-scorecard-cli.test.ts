// The client scorecard's command line (scripts/client-scorecard.ts): --help
// prints the usage and starts nothing (a full run takes minutes and real
// clients), a mistake prints it to stderr with exit 2. The script runs as a
// real process with a preload that reports every server listen and every
// child process it would start, so "started nothing" is observed, not assumed.
import { spawn } from 'node:child_process';
import t from 'tap';
import { CLIENT_IDS, LIES, TABLE_IDS } from '../../scripts/client-scorecard.js';
import { DIST } from '../helpers/process.js';

const SCRIPT = `${DIST}scripts/client-scorecard.js`;
/** Generous on a busy 2-core machine: the script only loads its modules and prints. */
const FAST_MS = 10_000;
/** Past this the script is killed: a real run would go on for minutes. */
const BOUND_MS = 20_000;

// Loaded with --import before the script: a line on stderr for each listen() (every node:net and node:http
// server) and each child process (spawn, execFile and fork all go through ChildProcess.prototype.spawn).
const PRELOAD = `data:text/javascript,${encodeURIComponent(`
import net from 'node:net';
import { ChildProcess } from 'node:child_process';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) { process.stderr.write('PRELOAD listen\\n'); return listen.apply(this, args); };
const start = ChildProcess.prototype.spawn;
ChildProcess.prototype.spawn = function (options) { process.stderr.write('PRELOAD spawn ' + options.file + '\\n'); return start.call(this, options); };
`)}`;

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

function runScript(args: readonly string[]): Promise<Ran> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', PRELOAD, SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

t.test('--help and -h print the usage and exit 0 at once, starting no server and no client', async (t) => {
  for (const flag of ['--help', '-h']) {
    const ran = await runScript([flag]);
    t.equal(ran.code, 0, `${flag}: exit 0 (stderr: ${ran.stderr.slice(0, 500)})`);
    t.ok(ran.ms < FAST_MS, `${flag}: returned in ${ran.ms} ms`);
    t.notMatch(ran.stderr, /PRELOAD/, `${flag}: no listen, no child process`);
    t.match(ran.stdout, /^usage: node dist\/scripts\/client-scorecard\.js /, `${flag}: the usage line first`);
    for (const option of ['--write', '--lie', '--client', '--table', '--help', 'PYTHON']) t.match(ran.stdout, option, `${flag}: it names ${option}`);
    t.match(ran.stdout, `tables:  ${TABLE_IDS.join(', ')}\n`, `${flag}: the table names --table accepts`);
    t.match(ran.stdout, `clients: ${CLIENT_IDS.join(', ')}\n`, `${flag}: the client names`);
    t.match(ran.stdout, `lies:    ${LIES.map((l) => l.id).join(', ')}\n`, `${flag}: the lie names`);
  }
});

t.test('an unknown option, or a name no table has, prints the usage to stderr and exits 2, starting nothing', async (t) => {
  for (const args of [['--frobnicate'], ['--write', 'extra'], ['--table', 'websocket,nosuch'], ['--write', '--lie', 'truncate']]) {
    const ran = await runScript(args);
    t.equal(ran.code, 2, `${args.join(' ')}: exit 2`);
    t.equal(ran.stdout, '', `${args.join(' ')}: nothing on stdout`);
    t.match(ran.stderr, /^client-scorecard: .+\n\nusage: /, `${args.join(' ')}: the problem, then the usage, on stderr`);
    t.notMatch(ran.stderr, /PRELOAD/, `${args.join(' ')}: no listen, no child process`);
    t.ok(ran.ms < FAST_MS, `${args.join(' ')}: returned in ${ran.ms} ms`);
  }
});

t.test('the preload sees what a run starts (so its silence above means something)', async (t) => {
  // One lie, one client: the run listens (its chaos and control services) before curl even starts.
  const ran = await runScript(['--lie', 'empty', '--client', 'curl']);
  t.match(ran.stderr, /PRELOAD listen\n/, 'a real run listens');
  t.match(ran.stderr, /PRELOAD spawn /, 'and starts a client');
});
