// /json (SPEC §4.1, §7): every mode is labelled JSON and never parses, read on
// a raw socket; the shared case list runs it against both hosts (chaos lies,
// control is well-formed), and curl sees the body is not JSON.
import t from 'tap';
import { JSON_MODES, type JsonMode } from '../../../shared/content/payload/index.js';
import { assertParamError, call, curl, parses, sharedCases } from '../../helpers/format-cases.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

t.test('GET /json: every mode is application/json, status 200, and never valid JSON', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const repairs: Record<string, (text: string) => string> = {
    'unquoted-key': (s) => s.replace(',items:', ',"items":'),
    'trailing-comma': (s) => s.replace('},]', '}]'),
    'missing-brace': (s) => `${s.trimEnd()}}`,
    'trailing-garbage': (s) => s.slice(0, s.indexOf('}\n') + 2),
  };
  const defectsOf: Record<JsonMode, string[]> = {
    all: ['unquoted-key', 'trailing-comma', 'missing-brace'],
    'missing-brace': ['missing-brace'],
    'unquoted-key': ['unquoted-key'],
    'trailing-comma': ['trailing-comma'],
    'trailing-garbage': ['trailing-garbage'],
  };
  for (const mode of JSON_MODES) {
    const { res, body, headText } = await call(port, `/json?mode=${mode}`);
    t.equal(res.status, 200, `${mode}: 200`);
    t.same(res.headers('content-type'), ['application/json'], `${mode}: one Content-Type line, application/json`);
    t.equal(res.rest.length, body.length, `${mode}: Content-Length is accurate (the lie is in the body only)`);
    t.equal(res.header('x-chaos-payload'), 'json-chaos');
    t.equal(res.header('x-chaos-json-mode'), mode);
    t.equal(res.header('x-chaos-category'), 'payload');
    t.equal(res.header('x-chaos-endpoint'), '/json');
    t.match(headText, /^HTTP\/1\.1 200 OK\r\n/);
    const text = body.toString('utf8');
    t.throws(() => JSON.parse(text), SyntaxError, `${mode}: JSON.parse throws`);
    // Exactly the documented defects: repairing them (and only them) yields the control document.
    const defects = defectsOf[mode];
    const repaired = defects.reduce((s, d) => (repairs[d] as (s: string) => string)(s), text);
    const doc = JSON.parse(repaired) as Record<string, unknown>;
    t.same(doc.defects, defects, `${mode}: the payload names its defects`);
    const control = await call(controlPort, `/json?mode=${mode}`);
    const twin = JSON.parse(control.body.toString('utf8')) as Record<string, unknown>;
    t.same({ ...doc, valid: true, defects: [] }, twin, `${mode}: repaired, it is the control document`);
    for (const d of defects) {
      // Every single defect on its own breaks the text.
      const others = defects.filter((x) => x !== d);
      const partly = others.reduce((s, o) => (repairs[o] as (s: string) => string)(s), text);
      t.throws(() => JSON.parse(partly), SyntaxError, `${mode}: ${d} alone still breaks it`);
    }
  }
  const byDefault = await call(port, '/json');
  t.equal(byDefault.res.header('x-chaos-json-mode'), 'all', 'default mode is all');
  t.ok(byDefault.body.equals((await call(port, '/json?mode=all')).body), 'same bytes every time');
  assertParamError(t, await call(port, '/json?mode=valid'), '/json', 'mode', 'valid');
  assertParamError(t, await call(controlPort, '/json?mode=valid'), '/json', 'mode', 'valid');
});

t.test('shared cases (json): the same paths answer on both hosts; chaos lies, control is well-formed', (t) =>
  sharedCases(t, (c) => c.chaos.startsWith('/json')));

t.test('curl sees the headline lies: /json', async (t) => {
  const { port } = await startChaos(t);
  const url = (path: string, p = port): string => `http://127.0.0.1:${p}${path}`;
  const json = await curl([url('/json')]);
  t.throws(() => JSON.parse(json.stdout), SyntaxError, 'curl /json: the body is not JSON');
});
