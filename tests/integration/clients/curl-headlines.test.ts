// The headline lies as a user sees them with curl on 127.0.0.1: /etag,
// /auth-required (and its control twin), /retry-mismatch, /random,
// /semantic-drift and the six conflicting discovery documents. The wire
// details are asserted on raw sockets elsewhere; this checks what `curl -i`
// prints.
import { execFile } from 'node:child_process';
import t from 'tap';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

interface CurlReply {
  readonly code: number;
  /** The last response's head, each header line ending in \r\n. */
  readonly head: string;
  readonly body: string;
}

/** `curl -si` with `args`; the exit code, the last head and the body after it. */
function curl(args: readonly string[]): Promise<CurlReply> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-si', '--max-time', '10', ...args], { encoding: 'latin1', timeout: 15_000 }, (error, stdout) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      const at = stdout.lastIndexOf('HTTP/1.');
      const end = stdout.indexOf('\r\n\r\n', at);
      resolve({
        code: error ? Number(error.code) : 0,
        head: end === -1 ? stdout.slice(at) : stdout.slice(at, end + 2),
        body: end === -1 ? '' : stdout.slice(end + 4),
      });
    });
  });
}

/** Every value of header `name` (case-insensitive) in a head printed by curl. */
function values(head: string, name: string): string[] {
  const prefix = `${name.toLowerCase()}:`;
  return head
    .split('\r\n')
    .filter((line) => line.toLowerCase().startsWith(prefix))
    .map((line) => line.slice(prefix.length).trim());
}

const config = testConfig({ RATE_LIMIT_GENERAL: '0' });
const chaos = (await startChaos(t, { config })).port;
const control = (await startHttp(t, 'control', config)).port;
const url = (path: string, port = chaos): string => `http://127.0.0.1:${port}${path}`;

t.test('/etag: two curl calls, two ETags, one body; unquoted shown as it is', async (t) => {
  const [a, b] = [await curl([url('/etag')]), await curl([url('/etag')])];
  for (const r of [a, b]) {
    t.equal(r.code, 0);
    t.match(r.head, /^HTTP\/1\.1 200 /);
    t.match(r.head, /\r\nETag: "[0-9a-f]{16}"\r\n/, 'one strong ETag');
    t.equal(values(r.head, 'etag').length, 1);
  }
  t.not(values(a.head, 'etag')[0], values(b.head, 'etag')[0], 'random-etag: a different ETag on each call');
  t.equal(a.body, b.body, '…for the same body');
  const unquoted = await curl([url('/etag?mode=unquoted')]);
  t.match(unquoted.head, /\r\nETag: [0-9a-f]{16}\r\n/, 'curl -i prints the unquoted ETag as sent');
  t.match(unquoted.head, /\r\nX-Chaos-Etag-Mode: unquoted\r\n/);
});

t.test('/auth-required: no credentials 401 with a Basic challenge; any Authorization passes on chaos, only chaos:control on control', async (t) => {
  const none = await curl([url('/auth-required')]);
  t.match(none.head, /^HTTP\/1\.1 401 /);
  t.same(values(none.head, 'www-authenticate'), ['Basic realm="hub.test"'], 'WWW-Authenticate: Basic realm=<the hub host name>');
  const anything = await curl(['-H', 'Authorization: anything', url('/auth-required')]);
  t.match(anything.head, /^HTTP\/1\.1 200 /, "curl -H 'Authorization: anything': 200");
  t.match(anything.head, /\r\nX-Chaos-Auth-Accepted: true\r\n/);
  t.match(JSON.parse(anything.body), { authenticated: true });

  const good = await curl(['-u', 'chaos:control', url('/auth-required', control)]);
  t.match(good.head, /^HTTP\/1\.1 200 /, 'control: curl -u chaos:control is 200');
  const wrong = await curl(['-u', 'chaos:wrong', url('/auth-required', control)]);
  t.match(wrong.head, /^HTTP\/1\.1 401 /, 'control: curl -u chaos:wrong is 401');
  t.same(values(wrong.head, 'www-authenticate'), ['Basic realm="hub.test"'], '…with the challenge again');
  const anythingControl = await curl(['-H', 'Authorization: anything', url('/auth-required', control)]);
  t.match(anythingControl.head, /^HTTP\/1\.1 401 /, "control: 'Authorization: anything' is 401");
});

t.test('/retry-mismatch: the same id twice, version 1 then 2', async (t) => {
  const target = url('/retry-mismatch?id=curl-headline');
  const first = await curl([target]);
  const second = await curl([target]);
  t.match(first.head, /\r\nX-Chaos-Retry-Replayed: false\r\n/);
  t.match(second.head, /\r\nX-Chaos-Retry-Replayed: true\r\n/);
  t.equal(JSON.parse(first.body).data.version, 1, 'first call: version 1');
  t.equal(JSON.parse(second.body).data.version, 2, 'the retry: version 2');
  t.notSame(JSON.parse(first.body).data, JSON.parse(second.body).data, 'a retry gets different data');
});

t.test('/random?seed=: the same seed, the same pick', async (t) => {
  for (const seed of ['curl-a', 'curl-b', 'curl-c']) {
    const [a, b] = [await curl([url(`/random?seed=${seed}`)]), await curl([url(`/random?seed=${seed}`)])];
    const from = values(a.head, 'x-chaos-random-from');
    t.equal(from.length, 1, `seed ${seed}: X-Chaos-Random-From is there (${from[0]})`);
    t.same(values(b.head, 'x-chaos-random-from'), from, `seed ${seed}: the same pick twice`);
    t.same(values(a.head, 'x-chaos-random-seed'), [seed]);
  }
});

t.test('/semantic-drift: X-Chaos-Drift: semantic', async (t) => {
  const r = await curl([url('/semantic-drift')]);
  t.match(r.head, /^HTTP\/1\.1 200 /);
  t.match(r.head, /\r\nX-Chaos-Drift: semantic\r\n/);
  t.match(JSON.parse(r.body).issuer, /\/semantic-drift\/void\/openid-configuration$/, 'the issuer is a dead URL');
});

t.test('each discovery document: the conflict group and what it claims', async (t) => {
  const documents = [
    '/.well-known/openid-configuration',
    '/.well-known/oauth-authorization-server',
    '/.well-known/agent-card.json',
    '/.well-known/oauth-protected-resource',
    '/.well-known/agent-skills/index.json',
    '/.well-known/mcp/server-card.json',
  ];
  for (const path of documents) {
    const r = await curl([url(path)]);
    t.match(r.head, /^HTTP\/1\.1 200 /, path);
    t.match(r.head, /\r\nX-Chaos-Conflict-Group: conflicting-discovery\r\n/, `${path}: conflict group`);
    t.match(r.head, /\r\nX-Chaos-Claims-[A-Za-z-]+: \S/, `${path}: an X-Chaos-Claims-* header`);
    t.doesNotThrow(() => JSON.parse(r.body), `${path}: the body is JSON`);
  }
});
