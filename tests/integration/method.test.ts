// The method category: /method's table for every method in every mode
// (OPTIONS included, pipelined six at a time), /head-lies, and their twins,
// which tell the truth: raw bytes on both hosts, the shared case list, and
// curl as a user sees the lies.
import t from 'tap';
import { ALLOW_CONTROL, ALLOW_SIX, HEAD_LIES_MODES, METHOD_MODES } from '../../shared/content/method.js';
import { get, parseHead, rawExchange, splitResponses, type ParsedResponse } from '../helpers/raw.js';
import { assertParamError, call, curl, json } from '../helpers/replies.js';
import { assertParamError as assertPlainParamError, curlHeads, request, sharedCases, SIX } from '../helpers/format-cases.js';
import { methodExpectation } from '../helpers/method-table.js';
import { startChaos, startHttp } from '../helpers/servers.js';

// ---------------------------------------------------------------- /method

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

t.test('/method: every method in every mode, OPTIONS included, as the table says; the twin tells the truth', async (t) => {
  const { port } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  for (const mode of METHOD_MODES) {
    for (const method of ALL_METHODS) {
      const r = await call(port, `/method?mode=${mode}`, method, ['POST', 'PUT', 'PATCH'].includes(method) ? 'x=1' : '');
      const want = methodExpectation(mode, method);
      const label = `${mode} ${method}`;
      t.equal(r.res.status, want.status, `${label}: ${want.status}`);
      t.same(r.res.headers('allow'), want.allow === null ? [] : [want.allow], `${label}: Allow ${want.allow ?? 'absent'}`);
      t.equal(r.res.header('x-chaos-request-method'), method);
      if (want.body === 'none') {
        t.same([r.res.headers('content-length'), r.res.headers('content-type')], [[], []], `${label}: 204 without Content-Length or Content-Type`);
      } else if (want.body === 'empty') {
        t.equal(r.res.header('content-length'), '0', `${label}: empty body`);
      } else if (method !== 'HEAD') {
        t.match(json(r), { endpoint: '/method', mode, method }, `${label}: JSON names mode and method`);
      }
      const twin = await call(control, `/method?mode=${mode}`, method);
      const truth = method === 'GET' || method === 'HEAD' ? 200 : method === 'OPTIONS' ? 204 : 405;
      t.equal(twin.res.status, truth, `control ${label}: ${truth}`);
      if (truth !== 200) t.same(twin.res.headers('allow'), [ALLOW_CONTROL], `control ${label}: the true Allow`);
    }
  }
  const explained = await call(port, '/method?mode=lying-allow');
  t.match(json(explained).options, /^405 /, 'the GET explanation says what OPTIONS gets');
});

// ---------------------------------------------------------------- /head-lies

/** A head's lines without Date (it may tick between two requests). */
function dateless(res: ParsedResponse): string[] {
  return res.headerLines.filter(([name]) => name.toLowerCase() !== 'date').map(([name, value]) => `${name}: ${value}`);
}

t.test("/head-lies: HEAD's answer differs from GET's as each mode says; the twin's HEAD is GET's head", async (t) => {
  const { port } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  for (const mode of HEAD_LIES_MODES) {
    const getReply = await call(port, `/head-lies?mode=${mode}`);
    t.equal(getReply.res.status, 200);
    t.equal(getReply.res.header('content-type'), 'application/json');
    t.equal(Number(getReply.res.header('content-length')), getReply.body.length, `${mode}: GET is honest`);
    t.match(json(getReply), { endpoint: '/head-lies', mode, head: String });
    t.equal(getReply.res.header('x-chaos-head-lies-mode'), mode);
    // HEAD, then GET, pipelined on one connection: what a client that reuses it sees.
    const r = await rawExchange(port, [get(`/head-lies?mode=${mode}`, {}, 'HEAD'), get(`/head-lies?mode=${mode}`, { Connection: 'close' })]);
    t.equal(r.end, 'fin');
    const head = parseHead(r.data);
    const length = getReply.body.length;
    const getHead = dateless(getReply.res);
    switch (mode) {
      case 'different-length':
        t.same(dateless(head), getHead.map((l) => (l.startsWith('Content-Length:') ? `Content-Length: ${2 * length}` : l)), 'HEAD: GET head, Content-Length doubled');
        t.match(head.rest.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n/, 'no body after HEAD: the next response follows at once');
        break;
      case 'different-type':
        t.same(dateless(head), getHead.map((l) => (l.startsWith('Content-Type:') ? 'Content-Type: text/html; charset=utf-8' : l)), 'HEAD: GET head, another Content-Type');
        t.match(head.rest.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n/);
        break;
      case 'body-on-head':
        t.same(dateless(head), getHead, "HEAD: exactly GET's head");
        t.same(head.rest.subarray(0, length), getReply.body, '…then the body, which HEAD must not have');
        t.match(head.rest.subarray(length).toString('latin1'), /^HTTP\/1\.1 200 OK\r\n/, 'the next response comes after those bytes: poisoned for a client');
        break;
    }
    // The twin: HEAD exactly GET's head, no body, in every mode.
    const twinGet = await call(control, `/head-lies?mode=${mode}`);
    const twin = await rawExchange(control, [get(`/head-lies?mode=${mode}`, {}, 'HEAD'), get(`/head-lies?mode=${mode}`, { Connection: 'close' })]);
    const twinHead = parseHead(twin.data);
    t.same(dateless(twinHead), dateless(twinGet.res), `control ${mode}: HEAD's head is GET's`);
    t.match(twinHead.rest.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n/, `control ${mode}: no body after HEAD`);
  }
  assertParamError(t, await call(port, '/head-lies?mode=honest'), '/head-lies', 'mode', 'honest');
  const badHead = await call(port, '/head-lies?mode=honest', 'HEAD');
  t.same([badHead.res.status, badHead.res.rest.length], [400, 0], 'HEAD with a bad mode: the 400 head, no body');
  t.equal((await call(port, '/head-lies', 'POST', 'a')).res.status, 405, 'POST: the router 405');
});

// ---------------------------------------------------------------- /method, pipelined

/** Six methods pipelined on one connection (bodies on the writes), the last one closing. */
async function methodRound(port: number, query: string): Promise<Map<string, { res: ParsedResponse; body: Buffer }>> {
  const requests = SIX.map((method, i) =>
    request(`/method${query}`, method, ['POST', 'PUT', 'PATCH'].includes(method) ? `{"probe":${i}}` : '', i === SIX.length - 1 ? { Connection: 'close' } : {}),
  );
  const result = await rawExchange(port, requests.join(''));
  if (result.end !== 'fin') throw new Error(`pipelined /method${query}: the connection did not close (${result.end})`);
  // One response per request: the request bodies were read and discarded, not taken for requests.
  const replies = splitResponses(result.data);
  if (replies.length !== SIX.length) throw new Error(`pipelined /method${query}: ${replies.length} responses for ${SIX.length} requests`);
  const out = new Map<string, { res: ParsedResponse; body: Buffer }>();
  replies.forEach(({ response, body }, i) => out.set(SIX[i] as string, { res: response, body }));
  return out;
}

t.test('/method: GET always 200; other methods per mode, exactly as the table says', async (t) => {
  const { port } = await startChaos(t);
  for (const mode of METHOD_MODES) {
    const replies = await methodRound(port, `?mode=${mode}`);
    for (const method of SIX) {
      const reply = replies.get(method);
      const want = methodExpectation(mode, method);
      t.ok(reply, `${mode} ${method}: answered`);
      if (!reply) continue;
      const { res, body } = reply;
      const label = `${mode} ${method}`;
      t.equal(res.status, want.status, `${label}: ${want.status}`);
      if (want.allow === null) t.same(res.headers('allow'), [], `${label}: no Allow line`);
      else t.same(res.headers('allow'), [want.allow], `${label}: Allow: ${want.allow}`);
      t.equal(res.header('x-chaos-method-mode'), mode);
      t.equal(res.header('x-chaos-request-method'), method);
      t.equal(res.header('x-chaos-category'), 'method');
      if (want.body === 'none') {
        t.same(res.headers('content-length'), [], `${label}: 204 has no Content-Length`);
        t.same(res.headers('content-type'), [], `${label}: 204 has no Content-Type`);
      } else if (want.body === 'empty') {
        t.equal(res.header('content-length'), '0', `${label}: empty body`);
      } else {
        t.equal(res.header('content-type'), 'application/json');
        const doc = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        t.match(doc, { endpoint: '/method', mode, method }, `${label}: JSON names mode and method`);
      }
    }
    // The lie, stated as the contradiction a client sees.
    const post = replies.get('POST')?.res;
    const options = replies.get('OPTIONS')?.res;
    if (mode === 'lying-allow') t.ok(post?.header('allow')?.split(', ').includes('POST'), 'lying-allow: refuses POST while allowing it');
    if (mode === 'options-mismatch') {
      t.ok(options?.header('allow')?.split(', ').includes('POST'), 'options-mismatch: OPTIONS advertises POST');
      t.equal(post?.status, 405, 'options-mismatch: …and POST is refused');
    }
  }
  const defaultPost = await call(port, '/method', 'POST', 'x=1');
  t.equal(defaultPost.res.header('x-chaos-method-mode'), 'lying-allow', 'default mode is lying-allow');
  t.equal(defaultPost.res.header('allow'), ALLOW_SIX);
  const get200 = await call(port, '/method?mode=405-without-allow');
  t.match(JSON.parse(get200.body.toString('utf8')), { endpoint: '/method', method: 'GET', handled: ['GET', 'HEAD'], other_methods: String });
  const getDefault = await call(port, '/method');
  const head = await rawExchange(port, get('/method', { Connection: 'close' }, 'HEAD'));
  const headRes = parseHead(head.data);
  t.equal(headRes.status, 200, 'HEAD is answered as GET');
  t.equal(headRes.header('content-length'), getDefault.res.header('content-length'), 'HEAD: the GET Content-Length');
  t.same(headRes.headers('allow'), [], 'HEAD: no Allow');
  t.equal(headRes.rest.length, 0, 'HEAD has no body');
  assertPlainParamError(t, await call(port, '/method?mode=honest'), '/method', 'mode', 'honest');
  assertPlainParamError(t, await call(port, '/method?mode=honest', 'DELETE'), '/method', 'mode', 'honest');
});

t.test('shared cases (method): the same paths answer on both hosts; chaos lies, control is well-formed', (t) =>
  sharedCases(t, (c) => c.chaos.startsWith('/method')));

t.test('control twins: /method, exact well-formed answers and the same parameter rules', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    const r = await call(port, '/method', method, method === 'DELETE' ? '' : 'x');
    t.equal(r.res.status, 405, `${method}: 405`);
    t.same(r.res.headers('allow'), ['GET, HEAD, OPTIONS'], `${method}: Allow is the truth, GET, HEAD, OPTIONS`);
  }
  const trace = await call(port, '/method', 'TRACE');
  t.equal(trace.res.status, 405, 'a method outside the six: the router answers');
  t.same(trace.res.headers('allow'), ['GET, HEAD, OPTIONS'], 'with the same true Allow');
  const options = await call(port, '/method', 'OPTIONS');
  t.equal(options.res.status, 204);
  t.same(options.res.headers('allow'), ['GET, HEAD, OPTIONS'], 'OPTIONS: the same true Allow');
  t.same(options.res.headers('content-length'), [], 'OPTIONS 204: no Content-Length');
  assertPlainParamError(t, await call(port, '/method?mode=x', 'POST', 'y'), '/method', 'mode', 'x');
});

t.test('curl sees the headline lies: /method', async (t) => {
  const { port } = await startChaos(t);
  const url = (path: string, p = port): string => `http://127.0.0.1:${p}${path}`;
  const post = await curl(['-i', '-X', 'POST', '--data', 'a=1', url('/method')]);
  const postHead = curlHeads(post.stdout)[0] ?? '';
  t.match(postHead, /^HTTP\/1\.1 405 /, 'curl -X POST: 405');
  t.match(postHead, /\r\nAllow: GET, POST, PUT, PATCH, DELETE, OPTIONS\r\n/, '…with an Allow that claims POST');
  const noAllow = await curl(['-i', '-X', 'DELETE', url('/method?mode=405-without-allow')]);
  t.notMatch(curlHeads(noAllow.stdout)[0] ?? '', /\r\nallow:/i, '405-without-allow: no Allow line');
  const silent = await curl(['-s', '-o', '/dev/null', '-w', '%{http_code} %{size_download}', '-X', 'PUT', '--data', 'x', url('/method?mode=silent-on-wrong-method')]);
  t.equal(silent.stdout, '200 0', 'silent-on-wrong-method: 200, empty body');
});
