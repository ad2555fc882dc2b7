// /.well-known/chaos (issue 13, discovery): the /semantic-drift document by
// default, the control document with its required members removed or
// retyped, the AI path with its budget and fallback, and the control twin.
import t from 'tap';
import { controlDocuments, SCHEMA_CONTENT_TYPES, SEMANTIC_SCHEMAS, WELL_KNOWN_CHAOS_MODES } from '../../shared/content/discovery.js';
import { checkShape, driftBodies, REQUIRED } from '../../services/chaos/drift.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../helpers/servers.js';

async function call(port: number, path: string): Promise<{ res: ParsedResponse; body: Buffer }> {
  const result = await rawExchange(port, get(path), { until: completeByLength });
  if (result.end !== 'stopped') throw new Error(`${path}: no complete response (${result.end})`);
  const res = parseHead(result.data);
  return { res, body: res.rest.subarray(0, Number(res.header('content-length') ?? 0)) };
}

t.test('chaos /.well-known/chaos: semantic is the drift document; the shape modes break every required member', async (t) => {
  const config = testConfig();
  const { port } = await startChaos(t, { config });
  for (const schema of SEMANTIC_SCHEMAS) {
    const semantic = await call(port, `/.well-known/chaos?schema=${schema}`);
    t.equal(semantic.res.status, 200);
    t.equal(semantic.res.header('content-type'), SCHEMA_CONTENT_TYPES[schema]);
    t.equal(semantic.res.header('x-chaos-discovery-mode'), 'semantic', 'semantic by default');
    t.equal(semantic.res.header('access-control-allow-origin'), '*');
    t.same(semantic.body, driftBodies(config)[schema], `${schema}: the /semantic-drift bytes`);
    t.same(semantic.body, (await call(port, `/semantic-drift?schema=${schema}`)).body);
    t.equal(checkShape(schema, JSON.parse(semantic.body.toString())), undefined, 'right in shape');

    const required = Object.keys(REQUIRED[schema]);
    const missing = await call(port, `/.well-known/chaos?schema=${schema}&mode=missing-fields`);
    const missingDoc = JSON.parse(missing.body.toString()) as Record<string, unknown>;
    t.same(required.filter((name) => name in missingDoc), [], `${schema}: no required member left`);
    t.equal(missing.res.header('x-chaos-broken-fields'), required.join(', '));
    t.ok(Object.keys(missingDoc).length > 0 || schema === 'jwks' || schema === 'webfinger' || schema === 'host-meta', 'optional members stay');

    const wrong = await call(port, `/.well-known/chaos?schema=${schema}&mode=wrong-types`);
    const wrongDoc = JSON.parse(wrong.body.toString()) as Record<string, unknown>;
    t.same(required.filter((name) => !(name in wrongDoc)), [], `${schema}: every required member present`);
    for (const name of required) t.not(checkShape(schema, { ...JSON.parse(controlDocuments(config).schemas[schema].toString()), [name]: wrongDoc[name] }), undefined, `${schema}.${name} has the wrong type`);
  }
  for (const bad of ['schema=nope', 'mode=nope', 'ai=maybe']) t.equal((await call(port, `/.well-known/chaos?${bad}`)).res.status, 400, bad);
});

t.test('chaos /.well-known/chaos?ai=true: the AI path of /semantic-drift, with its fallback', async (t) => {
  const { port } = await startChaos(t);
  const off = await call(port, '/.well-known/chaos?ai=true');
  t.equal(off.res.header('x-chaos-ai-source'), 'fallback');
  t.equal(off.res.header('x-chaos-ai-fallback-reason'), 'ai-disabled');
  t.same(off.body, driftBodies(testConfig())['openid-configuration']);
  t.equal((await call(port, '/.well-known/chaos?ai=true&mode=wrong-types')).res.header('x-chaos-ai-source'), undefined, 'ai is for mode=semantic only');

  const budgeted = testConfig({ AI_BASE_URL: 'http://127.0.0.1:9/v1', AI_MODEL: 'm', AI_DAILY_BUDGET: '0' });
  const { port: spent } = await startChaos(t, { config: budgeted });
  const none = await call(spent, '/.well-known/chaos?ai=true&schema=jwks');
  t.equal(none.res.header('x-chaos-ai-fallback-reason'), 'budget-exhausted', 'the same daily budget');
  t.same(none.body, driftBodies(budgeted).jwks);
});

t.test('control /.well-known/chaos: the well-formed document of the schema, whatever the mode', async (t) => {
  const config = testConfig();
  const { port } = await startHttp(t, 'control', config);
  for (const schema of SEMANTIC_SCHEMAS) {
    for (const mode of WELL_KNOWN_CHAOS_MODES) {
      const reply = await call(port, `/.well-known/chaos?schema=${schema}&mode=${mode}`);
      t.equal(reply.res.status, 200);
      t.same(reply.body, controlDocuments(config).schemas[schema], `${schema} ${mode}`);
      t.equal(checkShape(schema, JSON.parse(reply.body.toString())), undefined, 'right in shape');
    }
  }
  t.equal((await call(port, '/.well-known/chaos?mode=nope')).res.status, 400);
});
