// `make up` never hurts: before it builds, scripts/check-ports.sh says which
// port is taken and which variable moves it, instead of a stack trace later.
import { execFile } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { freePorts } from '../helpers/servers.js';

const script = fileURLToPath(new URL('../../../scripts/check-ports.sh', import.meta.url));

function check(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [script], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, _stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stderr });
    });
  });
}

t.test('free ports pass, a taken one is named with its variable', async (t) => {
  const [chaos, control, bots] = await freePorts(3);
  const env = { CHAOS_PORT: String(chaos), CONTROL_PORT: String(control), BOTS_PORT: String(bots) };
  t.same(await check(env), { code: 0, stderr: '' }, 'all free');
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(control, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const busy = await check(env);
  t.equal(busy.code, 1);
  t.match(busy.stderr, new RegExp(`port ${control} \\(CONTROL_PORT\\) .* already in use — another stack`));
  t.match(busy.stderr, /CONTROL_PORT=<free port> make up/);
  t.notMatch(busy.stderr, /CHAOS_PORT|BOTS_PORT/, 'only the taken one');
});
