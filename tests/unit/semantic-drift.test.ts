import t from 'tap';
import { createChaosRegistry } from '../../services/chaos/endpoints/index.js';
import { checkDrift, checkShape, DEAD_ROOT, deadPrefix, driftDocument, parseDriftAnswer } from '../../services/chaos/drift.js';
import { createControlRegistry } from '../../services/control/endpoints/index.js';
import { ConfigError, loadConfig } from '../../shared/config.js';
import { SEMANTIC_SCHEMAS } from '../../shared/discovery.js';

t.test('AI_TIMEOUT_MS: default 10 s, at most 10 s, an integer', async (t) => {
  t.equal(loadConfig({}).ai.timeoutMs, 10_000);
  t.equal(loadConfig({ AI_TIMEOUT_MS: '250' }).ai.timeoutMs, 250);
  for (const bad of ['0', '10001', 'abc', '1.5', '-5']) {
    t.throws(() => loadConfig({ AI_TIMEOUT_MS: bad }), /AI_TIMEOUT_MS/, bad);
  }
});

t.test('AI_BASE_URL: an http(s) API root, trailing slash dropped, path kept', async (t) => {
  t.equal(loadConfig({}).ai.baseUrl, undefined, 'unset turns AI mode off');
  t.equal(loadConfig({ AI_BASE_URL: 'https://api.openai.com/v1/' }).ai.baseUrl, 'https://api.openai.com/v1');
  t.equal(loadConfig({ AI_BASE_URL: 'http://127.0.0.1:11434' }).ai.baseUrl, 'http://127.0.0.1:11434');
  for (const bad of ['not a url', 'ftp://models.example/v1', 'https://api.example/v1?key=x', 'https://api.example/v1#x']) {
    try {
      loadConfig({ AI_BASE_URL: bad });
      t.fail(`${bad} was accepted`);
    } catch (error) {
      t.ok(error instanceof ConfigError && error.variable === 'AI_BASE_URL', bad);
    }
  }
});

const config = loadConfig({ PUBLIC_BASE_URL: 'http://chaos.test:8080' });

t.test('the dead root is routed on no host', async (t) => {
  for (const registry of [createChaosRegistry(), createControlRegistry()]) {
    for (const schema of SEMANTIC_SCHEMAS) {
      t.equal(registry.match(`${DEAD_ROOT}/${schema}/authorize`), undefined, `${registry.host} ${schema}`);
    }
    t.equal(registry.match(DEAD_ROOT), undefined);
  }
});

t.test('each deterministic drift passes the checks applied to model answers', async (t) => {
  for (const schema of SEMANTIC_SCHEMAS) {
    const prefix = deadPrefix(config, schema);
    const doc = driftDocument(schema, prefix);
    t.equal(checkShape(schema, doc), undefined, `${schema} shape`);
    t.equal(checkDrift(doc, prefix), undefined, `${schema} drift rules`);
  }
});

t.test('checkShape names the first missing or mistyped member', async (t) => {
  const prefix = deadPrefix(config, 'openid-configuration');
  const doc = driftDocument('openid-configuration', prefix);
  t.equal(checkShape('openid-configuration', { ...doc, issuer: undefined }), 'issuer must be string');
  t.equal(checkShape('openid-configuration', { ...doc, response_types_supported: 'code' }), 'response_types_supported must be string[]');
  t.equal(checkShape('jwks', { keys: [{ n: 'x' }] }), 'keys[0].kty must be string');
  t.equal(checkShape('webfinger', { subject: 'x', links: [{ href: 'x' }] }), 'links[0].rel must be string');
  t.equal(checkShape('agent-card', []), 'the document must be a JSON object');
  t.equal(checkShape('host-meta', { links: [] }), undefined, 'an empty links array is a valid host-meta');
});

t.test('checkDrift: dead URLs only, nothing true, capability lists empty', async (t) => {
  const prefix = deadPrefix(config, 'openid-configuration');
  const ok = (doc: unknown, why: string): void => void t.equal(checkDrift(doc, prefix), undefined, why);
  const bad = (doc: unknown, why: string): void => void t.type(checkDrift(doc, prefix), 'string', why);
  ok({ issuer: prefix, a: `${prefix}/x/y?z=1` }, 'under the dead prefix');
  ok({ a: 'https://anything.invalid/x' }, 'the .invalid TLD is dead by definition');
  ok({ links: [{ rel: 'http://openid.net/specs/connect/1.0/issuer' }] }, 'rel values are identifiers, not links');
  bad({ a: 'https://accounts.example.com/authorize' }, 'a live host');
  bad({ a: `${prefix}/../../../status/200` }, 'dot segments climbing out of the dead root');
  bad({ a: `http://chaos.test:8080${DEAD_ROOT}/jwks/x` }, "another schema's dead root is not this one");
  bad({ a: 'http://chaos.test:8081/semantic-drift/void/openid-configuration' }, 'another port');
  bad({ a: 'acct:someone@example.com' }, 'a real account');
  ok({ a: 'acct:someone@nowhere.invalid' }, 'an account on .invalid');
  bad({ nested: { deeper: [false, true] } }, 'a true anywhere');
  bad({ grant_types_supported: ['authorization_code'] }, 'a non-empty _supported list');
  bad({ defaultInputModes: ['text/plain'] }, 'a non-empty input-mode list');
  ok({ aliases: [`${prefix}/a`] }, 'other arrays may hold dead URLs');
});

t.test('parseDriftAnswer: JSON only (a code fence is tolerated), shape and rules enforced', async (t) => {
  const prefix = deadPrefix(config, 'jwks');
  const doc = driftDocument('jwks', prefix);
  const text = JSON.stringify(doc);
  t.same(parseDriftAnswer('jwks', text, prefix), doc);
  t.same(parseDriftAnswer('jwks', `\`\`\`json\n${text}\n\`\`\``, prefix), doc, 'fenced');
  t.equal(parseDriftAnswer('jwks', `Here it is: ${text}`, prefix), undefined, 'prose around it');
  t.equal(parseDriftAnswer('jwks', '{"keys": "none"}', prefix), undefined, 'wrong shape');
  t.equal(parseDriftAnswer('jwks', text.replace(prefix, 'https://example.com'), prefix), undefined, 'a live URL');
});
