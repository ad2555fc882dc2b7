// `make up`: starts chaos, control and bots as separate processes in the
// foreground, prints their URLs, and on Ctrl-C (SIGINT) or SIGTERM stops them
// all cleanly. A second Ctrl-C kills them at once.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HostName } from '../shared/config.js';
import { configOrExit, type ReadyMessage } from '../shared/run.js';

const SERVICES: readonly HostName[] = ['chaos', 'control', 'bots'];
const config = configOrExit();
const children = new Map<HostName, ChildProcess>();
const ready = new Map<HostName, string>();
let stopping = false;

function stopAll(signal: NodeJS.Signals): void {
  for (const child of children.values()) if (child.exitCode === null) child.kill(signal);
}

for (const name of SERVICES) {
  const child = fork(fileURLToPath(new URL(`./${name}/main.js`, import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.set(name, child);
  child.on('message', (message: ReadyMessage) => {
    if (message?.type !== 'ready') return;
    ready.set(name, message.url);
    if (ready.size === SERVICES.length) {
      process.stdout.write(
        `\nChaos Endpoint Service is up (${config.redisUrl ? 'state shared on Redis' : 'embedded default: in-memory store'}, direct ports)\n` +
          SERVICES.map((s) => `  ${s.padEnd(8)} ${ready.get(s)}/`).join('\n') +
          `\nTry: curl -v ${ready.get('chaos')}/truncate\nCtrl-C stops all three.\n\n`,
      );
    }
  });
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      process.stderr.write(`${name} exited unexpectedly (${signal ?? `code ${code}`}); stopping the others\n`);
      stopping = true;
      process.exitCode = 1;
      stopAll('SIGTERM');
    }
    if (children.size === 0) process.exit();
  });
}

let signals = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    signals++;
    stopping = true;
    if (signals === 1) {
      process.stdout.write(`\n${signal}: stopping (in-flight responses get up to ${config.shutdownGraceMs} ms; Ctrl-C again stops at once)\n`);
      stopAll('SIGTERM');
      // Never outlive the grace by much.
      setTimeout(() => stopAll('SIGKILL'), config.shutdownGraceMs + 5000).unref();
    } else {
      stopAll('SIGKILL');
    }
  });
}
