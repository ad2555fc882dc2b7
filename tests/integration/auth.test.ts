// The auth category on real sockets. /auth-required on the chaos host (raw
// sockets) and its control twin, which accepts only the documented test
// credentials. Issue 13: /jwt hands out and accepts tokens a validator must
// refuse, and its control twin refuses each one with the check that fails
// (signatures verified here with node:crypto against the control JWKS);
// /auth-challenge sends malformed WWW-Authenticate lines, /auth-loop a realm
// that never settles; the chaos JWKS lies about the signing key.
import { createHash, createHmac, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { digestNonce } from '../../shared/content/auth/index.js';
import { chaosHeaderNames, exchange, json } from '../helpers/final-response.js';
import { fetchJson } from '../helpers/fetch-json.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';
import { startChaos, startHttp } from '../helpers/servers.js';

const run = promisify(execFile);
// testConfig() names the hub http://hub.test:8080: the realm defaults to its host name.
const REALM = 'hub.test';

t.test('/auth-required without Authorization: 401 with the chosen challenge', async (t) => {
  const { port } = await startChaos(t);
  const basic = await exchange(port, get('/auth-required'));
  t.equal(basic.response.status, 401);
  t.same(basic.response.headers('www-authenticate'), [`Basic realm="${REALM}"`], 'basic is the default; realm is the domain, quoted');
  t.equal(basic.response.header('x-chaos-auth-scheme'), 'basic');
  t.equal(basic.response.header('x-chaos-auth-accepted'), 'false');
  t.equal(basic.response.header('x-chaos-category'), 'auth');
  t.match(json(basic), { endpoint: '/auth-required', authenticated: false, scheme: 'basic', realm: REALM });

  const bearer = await exchange(port, get('/auth-required?scheme=bearer'));
  t.same(bearer.response.headers('www-authenticate'), [`Bearer realm="${REALM}"`]);

  const digest = await exchange(port, get('/auth-required?scheme=digest'));
  const { nonce, opaque } = digestNonce(REALM);
  t.same(digest.response.headers('www-authenticate'), [
    `Digest realm="${REALM}", qop="auth", algorithm=SHA-256, nonce="${nonce}", opaque="${opaque}"`,
  ]);
  t.match(nonce, /^[0-9a-f]{32}$/);
  const again = await exchange(port, get('/auth-required?scheme=digest'));
  t.equal(again.response.header('www-authenticate'), digest.response.header('www-authenticate'), 'the digest challenge is reproducible');

  const none = await exchange(port, get('/auth-required?scheme=none'));
  t.equal(none.response.status, 401, 'scheme=none: still 401');
  t.same(none.response.headers('www-authenticate'), [], 'scheme=none: no WWW-Authenticate at all');
  t.equal(none.response.header('x-chaos-auth-scheme'), 'none');
});

t.test('/auth-required with any Authorization header at all: 200', async (t) => {
  const { port } = await startChaos(t);
  const values = ['Basic Zm9vOmJhcg==', 'Bearer nonsense', 'Digest username="x"', 'garbage', ''];
  for (const scheme of ['basic', 'bearer', 'digest', 'none']) {
    for (const value of values) {
      const ex = await exchange(port, `GET /auth-required?scheme=${scheme} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${value}\r\n\r\n`);
      t.equal(ex.response.status, 200, `${scheme} with ${JSON.stringify(value)}: 200`);
      t.same(ex.response.headers('www-authenticate'), [], 'no challenge on success');
      t.equal(ex.response.header('x-chaos-auth-accepted'), 'true');
      t.match(json(ex), { endpoint: '/auth-required', authenticated: true, scheme });
    }
  }
  const lower = await exchange(port, `GET /auth-required HTTP/1.1\r\nHost: 127.0.0.1\r\nauthorization: x\r\n\r\n`);
  t.equal(lower.response.status, 200, 'the header name is case-insensitive');
  const body = json(lower);
  t.notOk(JSON.stringify(body).includes('"x"'), 'the credential is never echoed');
});

t.test('/auth-required realm: sanitised to letters, digits, . _ - and space, then cut to 64', async (t) => {
  const { port } = await startChaos(t);
  const cases: [string, string][] = [
    ['My%20Realm', 'My Realm'],
    ['a%22b%5Cc%2Cd%3De', 'abcde'],
    ['%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'scriptalert1script'],
    ['r%C3%A9alm_1.0-x', 'ralm_1.0-x'],
    [`${'x'.repeat(70)}`, 'x'.repeat(64)],
    [`${'!'.repeat(10)}${'y'.repeat(80)}`, 'y'.repeat(64)],
    ['%0D%0AX-Injected:%201', 'X-Injected 1'],
    ['', ''],
    ['!!!', ''],
  ];
  for (const [raw, expected] of cases) {
    const ex = await exchange(port, get(`/auth-required?realm=${raw}`));
    t.equal(ex.response.status, 401, `${raw.slice(0, 20)}: longer input is cut, not refused`);
    t.same(ex.response.headers('www-authenticate'), [`Basic realm="${expected}"`], `${raw.slice(0, 20)} → ${JSON.stringify(expected)}`);
    t.equal(json(ex).realm, expected);
    t.equal(ex.response.header('x-injected'), undefined);
  }
  const long = await exchange(port, get(`/auth-required?scheme=bearer&realm=${'z'.repeat(2000)}`));
  t.equal(long.response.header('www-authenticate'), `Bearer realm="${'z'.repeat(64)}"`);
});

t.test('/auth-required bad input: unknown scheme is a 400 without X-Chaos-*', async (t) => {
  const { port } = await startChaos(t);
  for (const scheme of ['ntlm', 'Basic', '']) {
    const ex = await exchange(port, get(`/auth-required?scheme=${scheme}`));
    t.equal(ex.response.status, 400, `scheme=${scheme}`);
    t.same(chaosHeaderNames(ex.response), []);
    t.match(json(ex), { error: 'invalid_parameter', param: 'scheme', accepted: ['basic', 'bearer', 'digest', 'none'] });
  }
});

t.test('control /auth-required accepts only the documented test credentials', async (t) => {
  const { port } = await startHttp(t, 'control');
  const url = `http://127.0.0.1:${port}/auth-required`;
  const basic = (user: string, pass: string): string => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

  const missing = await fetchJson(url);
  t.equal(missing.res.status, 401);
  t.equal(missing.res.headers.get('www-authenticate'), `Basic realm="${REALM}"`);
  t.equal((await fetchJson(url, { headers: { Authorization: basic('chaos', 'wrong') } })).res.status, 401, 'wrong password');
  t.equal((await fetchJson(url, { headers: { Authorization: 'garbage' } })).res.status, 401, 'not credentials');
  t.equal((await fetchJson(url, { headers: { Authorization: 'Bearer control-token' } })).res.status, 401, 'another scheme');
  const ok = await fetchJson(url, { headers: { Authorization: basic('chaos', 'control') } });
  t.equal(ok.res.status, 200);
  t.match(ok.body, { authenticated: true, scheme: 'basic' });
  t.equal((await fetchJson(url, { headers: { Authorization: basic('chaos', 'control').replace('Basic', 'basic') } })).res.status, 200, 'scheme name is case-insensitive');

  const bearer = await fetchJson(`${url}?scheme=bearer`);
  t.equal(bearer.res.headers.get('www-authenticate'), `Bearer realm="${REALM}"`);
  t.equal((await fetchJson(`${url}?scheme=bearer`, { headers: { Authorization: 'Bearer control-token' } })).res.status, 200);
  t.equal((await fetchJson(`${url}?scheme=bearer`, { headers: { Authorization: 'Bearer other' } })).res.status, 401);

  const none = await fetchJson(`${url}?scheme=none`);
  t.equal(none.res.status, 401);
  t.equal(none.res.headers.get('www-authenticate'), `Basic realm="${REALM}"`, 'a 401 must carry a challenge: none falls back to Basic');

  const realm = await fetchJson(`${url}?realm=My%20Realm!`);
  t.equal(realm.res.headers.get('www-authenticate'), 'Basic realm="My Realm"');
});

t.test('control /auth-required digest: SHA-256 and MD5 challenges, a valid response passes', async (t) => {
  const { port } = await startHttp(t, 'control');
  const target = '/auth-required?scheme=digest';
  const challenge = await exchange(port, get(target));
  const { nonce, opaque } = digestNonce(REALM);
  t.same(challenge.response.headers('www-authenticate'), [
    `Digest realm="${REALM}", qop="auth", algorithm=SHA-256, nonce="${nonce}", opaque="${opaque}"`,
    `Digest realm="${REALM}", qop="auth", algorithm=MD5, nonce="${nonce}", opaque="${opaque}"`,
  ]);
  for (const [algorithm, name] of [['SHA-256', 'sha256'], ['MD5', 'md5']] as const) {
    const h = (s: string): string => createHash(name).update(s).digest('hex');
    const authorize = (password: string): string => {
      const response = h(`${h(`chaos:${REALM}:${password}`)}:${nonce}:00000001:abcdef:auth:${h(`GET:${target}`)}`);
      return `Digest username="chaos", realm="${REALM}", nonce="${nonce}", uri="${target}", algorithm=${algorithm}, qop=auth, nc=00000001, cnonce="abcdef", response="${response}", opaque="${opaque}"`;
    };
    const good = await exchange(port, get(target, { Authorization: authorize('control') }));
    t.equal(good.response.status, 200, `${algorithm}: the right password`);
    const bad = await exchange(port, get(target, { Authorization: authorize('nope') }));
    t.equal(bad.response.status, 401, `${algorithm}: a wrong password`);
  }
  const { stdout } = await run('curl', ['-s', '--max-time', '5', '--digest', '-u', 'chaos:control', `http://127.0.0.1:${port}${target}&x=1`]);
  t.match(stdout, /"authenticated":true/, 'curl --digest authenticates');
});

// ---- /jwt, /auth-challenge, /auth-loop, the JWKS --------------------------

type Doc = Record<string, unknown>;
interface Answer {
  readonly head: ParsedResponse;
  readonly json: Doc;
}

const CONTROL = 'http://control.test:8080';
const MODES = ['alg-none', 'alg-confusion', 'kid-traversal', 'expired', 'not-yet-valid', 'wrong-audience'] as const;
const BASIC_GOOD = `Basic ${Buffer.from('chaos:control').toString('base64')}`;
const BASIC_BAD = `Basic ${Buffer.from('chaos:wrong').toString('base64')}`;

async function ask(port: number, path: string, headers: Readonly<Record<string, string>> = {}): Promise<Answer> {
  const raw = await rawExchange(port, get(path, headers), { until: completeByLength });
  const head = parseHead(raw.data);
  return { head, json: JSON.parse(head.rest.toString()) as Doc };
}

const part = (token: string, i: number): Doc => JSON.parse(Buffer.from(token.split('.')[i] as string, 'base64url').toString()) as Doc;

/** RFC 9110 §11.3 challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ], one challenge per line. */
function parseChallenge(line: string): { scheme: string; params: Map<string, string> } | undefined {
  const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
  const param = `${token}[ \\t]*=[ \\t]*(?:${token}|"(?:[^"\\\\]|\\\\.)*")`;
  const re = new RegExp(`^(${token})(?: +(${param}(?:[ \\t]*,[ \\t]*${param})*))?$`);
  const m = re.exec(line);
  if (!m) return undefined;
  const params = new Map<string, string>();
  for (const p of (m[2] ?? '').matchAll(new RegExp(`(${token})[ \\t]*=[ \\t]*(?:(${token})|"((?:[^"\\\\]|\\\\.)*)")`, 'g'))) {
    params.set((p[1] as string).toLowerCase(), p[2] ?? (p[3] as string));
  }
  return { scheme: (m[1] as string).toLowerCase(), params };
}

t.test('chaos and control side by side', async (t) => {
  const chaos = (await startChaos(t)).port;
  const control = (await startHttp(t, 'control')).port;

  const jwks = (await ask(control, '/.well-known/jwks.json')).json;
  const jwk = (jwks.keys as Doc[])[0] as Doc;
  const publicKey: KeyObject = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const signedInput = (token: string): Buffer => Buffer.from(token.split('.').slice(0, 2).join('.'));
  const signature = (token: string): Buffer => Buffer.from(token.split('.')[2] as string, 'base64url');

  t.test('chaos /jwt: each mode issues its token, and any decodable token is then accepted', async (t) => {
    const tokens = new Map<string, string>();
    for (const mode of MODES) {
      const { head, json } = await ask(chaos, `/jwt?mode=${mode}`);
      t.equal(head.status, 200, mode);
      t.equal(head.header('x-chaos-jwt-mode'), mode);
      t.equal(head.header('cache-control'), 'no-store');
      const token = json.token as string;
      tokens.set(mode, token);
      t.same(part(token, 0), json.header, `${mode}: the header is what the body says`);
      t.same(part(token, 1), json.claims);
      const claims = json.claims as Doc;
      t.equal(claims.iss, CONTROL);
      const accepted = await ask(chaos, `/jwt?mode=${mode}`, { Authorization: `Bearer ${token}` });
      t.equal(accepted.head.status, 200, `${mode}: accepted`);
      t.equal(accepted.head.header('x-chaos-jwt-accepted'), 'true');
      t.same(accepted.json.claims, claims);
      t.equal(accepted.json.accepted, true);
    }
    t.equal((await ask(chaos, '/jwt')).head.header('x-chaos-jwt-mode'), 'alg-none', 'the default');
    const none = tokens.get('alg-none') as string;
    t.same(part(none, 0), { alg: 'none', typ: 'JWT', kid: jwk.kid });
    t.ok(none.endsWith('.') && none.split('.').length === 3, 'alg-none: an empty signature');
    const confusion = tokens.get('alg-confusion') as string;
    t.same(part(confusion, 0), { alg: 'HS256', typ: 'JWT', kid: jwk.kid });
    t.equal(createHmac('sha256', pem).update(signedInput(confusion)).digest('base64url'), confusion.split('.')[2], 'alg-confusion: HMAC keyed with the JWKS key as PEM');
    const traversal = tokens.get('kid-traversal') as string;
    t.match(part(traversal, 0).kid, /^(\.\.\/)+dev\/null$/);
    t.equal(createHmac('sha256', Buffer.alloc(0)).update(signedInput(traversal)).digest('base64url'), traversal.split('.')[2], 'kid-traversal: HMAC with an empty key');
    for (const mode of ['expired', 'not-yet-valid', 'wrong-audience']) {
      const token = tokens.get(mode) as string;
      t.ok(verify('sha256', signedInput(token), publicKey, signature(token)), `${mode}: a genuine RS256 signature by the JWKS key`);
    }
    t.ok((part(tokens.get('expired') as string, 1).exp as number) < Date.now() / 1000, 'expired: exp in the past');
    t.ok((part(tokens.get('not-yet-valid') as string, 1).nbf as number) > Date.now() / 1000 + 86400, 'not-yet-valid: nbf in the future');
    t.not(part(tokens.get('wrong-audience') as string, 1).aud, `${CONTROL}/jwt`);
    t.equal((await ask(chaos, '/jwt?mode=alg-none')).json.token, none, 'the same bytes on every call');

    const garbage = await ask(chaos, '/jwt', { Authorization: 'Bearer not-a-jwt' });
    t.equal(garbage.head.status, 401, 'not even a JWT is refused');
    t.equal(garbage.head.header('www-authenticate'), 'Bearer realm="jwt", error="invalid_token"');
    t.equal(garbage.head.header('x-chaos-jwt-accepted'), 'false');
    t.equal((await ask(chaos, '/jwt?mode=alg-nothing')).head.status, 400);
  });

  t.test('control /jwt: issues a valid RS256 token, accepts it, refuses every chaos token by the failing check', async (t) => {
    const issued = await ask(control, '/jwt');
    t.equal(issued.head.status, 200);
    const token = issued.json.token as string;
    const header = part(token, 0);
    const claims = part(token, 1);
    t.same(header, { alg: 'RS256', typ: 'JWT', kid: jwk.kid }, 'kid names the JWKS key');
    t.ok(verify('sha256', signedInput(token), publicKey, signature(token)), 'its signature verifies with the JWKS key');
    t.equal(claims.iss, CONTROL);
    t.equal(claims.aud, `${CONTROL}/jwt`);
    t.equal((claims.exp as number) - (claims.iat as number), 300);
    t.ok(Math.abs((claims.iat as number) - Date.now() / 1000) < 10, 'issued now');
    t.ok(Array.isArray(issued.json.checks) && (issued.json.checks as unknown[]).length === 8, 'lists the checks');
    const ok = await ask(control, '/jwt', { Authorization: `Bearer ${token}` });
    t.equal(ok.head.status, 200);
    t.equal(ok.json.accepted, true);
    t.same(ok.json.claims, claims);

    const reasons: Readonly<Record<(typeof MODES)[number], string>> = {
      'alg-none': 'alg none is not accepted (RS256 only)',
      'alg-confusion': 'alg HS256 is not accepted (RS256 only)',
      'kid-traversal': 'kid does not name a key of the JWKS',
      expired: 'token expired',
      'not-yet-valid': 'token not yet valid',
      'wrong-audience': 'wrong audience',
    };
    for (const mode of MODES) {
      const chaosTokenOfMode = (await ask(chaos, `/jwt?mode=${mode}`)).json.token as string;
      const refused = await ask(control, `/jwt?mode=${mode}`, { Authorization: `Bearer ${chaosTokenOfMode}` });
      t.equal(refused.head.status, 401, `${mode}: refused`);
      t.equal(refused.head.header('www-authenticate'), `Bearer realm="jwt", error="invalid_token", error_description="${reasons[mode]}"`);
      t.equal(refused.json.reason, reasons[mode]);
      const described = (await ask(control, `/jwt?mode=${mode}`)).json.refuses as Doc;
      t.same([described.token, described.reason], [chaosTokenOfMode, reasons[mode]], `${mode}: the twin names the token it refuses`);
    }
    const [h, p, s] = token.split('.') as [string, string, string];
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url')}.${s}`;
    t.not(tampered, `${h}.${p}.${s}`);
    const bad = await ask(control, '/jwt', { Authorization: `Bearer ${tampered}` });
    t.equal(bad.head.header('www-authenticate'), 'Bearer realm="jwt", error="invalid_token", error_description="signature does not verify"');
    const basic = await ask(control, '/jwt', { Authorization: BASIC_GOOD });
    t.equal(basic.head.status, 401);
    t.equal(basic.head.header('www-authenticate'), 'Bearer realm="jwt"', 'no token presented: no error code (RFC 6750 §3.1)');
    t.equal((await ask(control, '/jwt?mode=alg-nothing')).head.status, 400);
  });

  t.test('/auth-challenge: each mode is its exact malformed lines; the twin one well-formed challenge', async (t) => {
    const expected: Readonly<Record<string, readonly string[]>> = {
      'unbalanced-quotes': ['Basic realm="auth-challenge, charset="UTF-8"'],
      'unknown-scheme': ['Chaos realm="auth-challenge", proof="sha-3000"'],
      contradictory: ['Basic realm="auth-challenge-users"', 'Basic realm="auth-challenge-admins", charset="ISO-8859-1"', 'Bearer realm="auth-challenge", error="insufficient_scope"'],
      'missing-realm': ['Basic charset="UTF-8"'],
      'split-header': ['Digest realm="auth-challenge", qop="auth",', 'nonce="7f3a91c2e4b5d6a8", algorithm=SHA-256'],
    };
    for (const [mode, lines] of Object.entries(expected)) {
      for (const headers of [{}, { Authorization: BASIC_GOOD }] as Readonly<Record<string, string>>[]) {
        const { head } = await ask(chaos, `/auth-challenge?mode=${mode}`, headers);
        t.equal(head.status, 401, `${mode}: 401 whatever is sent`);
        t.same(head.headers('www-authenticate'), lines, `${mode}: exact lines`);
        t.equal(head.header('x-chaos-challenge-mode'), mode);
      }
    }
    t.equal(parseChallenge('Basic realm="auth-challenge, charset="UTF-8"'), undefined, 'unbalanced-quotes does not parse');
    t.equal(parseChallenge('Chaos realm="auth-challenge", proof="sha-3000"')?.scheme, 'chaos', 'unknown-scheme parses, but nobody speaks it');
    t.equal(parseChallenge('Basic charset="UTF-8"')?.params.has('realm'), false, 'missing-realm: Basic without its required realm');
    t.equal(parseChallenge('nonce="7f3a91c2e4b5d6a8", algorithm=SHA-256'), undefined, 'split-header: the second line is no challenge');

    const twin = await ask(control, '/auth-challenge?mode=split-header');
    t.equal(twin.head.status, 401);
    t.same(twin.head.headers('www-authenticate'), ['Basic realm="auth-challenge", charset="UTF-8"']);
    const parsed = parseChallenge(twin.head.header('www-authenticate') as string);
    t.same([parsed?.scheme, parsed?.params.get('realm'), parsed?.params.get('charset')], ['basic', 'auth-challenge', 'UTF-8'], 'well-formed (RFC 9110 §11, RFC 7617)');
    t.equal((await ask(control, '/auth-challenge', { Authorization: BASIC_BAD })).head.status, 401);
    t.equal((await ask(control, '/auth-challenge', { Authorization: BASIC_GOOD })).head.status, 200);
    t.equal((await ask(chaos, '/auth-challenge?mode=nope')).head.status, 400);
    t.equal((await ask(control, '/auth-challenge?mode=nope')).head.status, 400);
  });

  t.test('/auth-loop: 401 every time with a new realm per call; the twin lets the credentials in', async (t) => {
    for (const [attempt, headers] of [[1, {}], [2, { Authorization: BASIC_GOOD }], [3, { Authorization: BASIC_GOOD }]] as const) {
      const { head, json } = await ask(chaos, '/auth-loop', headers);
      t.equal(head.status, 401, `call ${attempt}`);
      t.equal(head.header('www-authenticate'), `Basic realm="auth-loop-${attempt}"`);
      t.equal(head.header('x-chaos-auth-loop-attempt'), String(attempt));
      t.equal(json.credentials_sent, attempt > 1);
    }
    const without = await ask(control, '/auth-loop');
    t.equal(without.head.status, 401);
    t.equal(without.head.header('www-authenticate'), 'Basic realm="auth-loop", charset="UTF-8"');
    t.equal((await ask(control, '/auth-loop')).head.header('www-authenticate'), 'Basic realm="auth-loop", charset="UTF-8"', 'the same realm every time');
    t.equal((await ask(control, '/auth-loop', { Authorization: BASIC_BAD })).head.status, 401);
    const withCredentials = await ask(control, '/auth-loop', { Authorization: BASIC_GOOD });
    t.equal(withCredentials.head.status, 200);
    t.equal(withCredentials.json.authenticated, true);
  });

  t.test('chaos /.well-known/jwks.json: a mismatched kid, a key per call, a key for encryption', async (t) => {
    const thumbprint = (key: Doc): string => createHash('sha256').update(JSON.stringify({ e: key.e, kty: key.kty, n: key.n })).digest('base64url');
    t.equal(jwk.kid, thumbprint(jwk), 'control: the kid is the RFC 7638 thumbprint');
    t.equal(jwk.use, 'sig');

    const mismatch = await ask(chaos, '/.well-known/jwks.json');
    t.equal(mismatch.head.header('x-chaos-jwks-mode'), 'kid-mismatch', 'the default');
    t.equal(mismatch.head.header('content-type'), 'application/jwk-set+json');
    t.same(mismatch.json, { keys: [{ ...jwk, kid: 'chaos-signing-key-1' }] }, 'the signing key under a kid no token names');

    const wrongUse = await ask(chaos, '/.well-known/jwks.json?mode=wrong-use');
    t.same(wrongUse.json, { keys: [{ ...jwk, use: 'enc' }] });

    const kids: string[] = [];
    for (const rotation of [1, 2, 3]) {
      const { head, json } = await ask(chaos, '/.well-known/jwks.json?mode=rotating');
      t.equal(head.header('x-chaos-jwks-rotation'), String(rotation));
      const key = (json.keys as Doc[])[0] as Doc;
      t.equal(key.kid, thumbprint(key), 'each rotated kid is its key\'s thumbprint');
      t.equal(createPublicKey({ key: key as JsonWebKey, format: 'jwk' }).asymmetricKeyDetails?.modulusLength, 2048);
      kids.push(key.kid as string);
    }
    t.equal(new Set(kids).size, 3, 'a different key on every call');
    t.notOk(kids.includes(jwk.kid as string));
    const fresh = (await startChaos(t)).port;
    const replay = (await ask(fresh, '/.well-known/jwks.json?mode=rotating')).json;
    t.equal(((replay.keys as Doc[])[0] as Doc).kid, kids[0], 'reproducible: a first call gives the first key');

    t.same((await ask(control, '/.well-known/jwks.json?mode=rotating')).json, jwks, 'control: mode accepted for parity, the same set');
    t.equal((await ask(chaos, '/.well-known/jwks.json?mode=nope')).head.status, 400);
    t.equal((await ask(control, '/.well-known/jwks.json?mode=nope')).head.status, 400);
  });
});
