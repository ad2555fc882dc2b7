import t from 'tap';
import { parseDriftAnswer } from '../../services/chaos/drift-ai.js';
import { checkDrift, checkShape, DEAD_ROOT, deadPrefix, driftDocument } from '../../services/chaos/drift.js';
import { ConfigError, loadConfig } from '../../shared/config/config.js';
import { SEMANTIC_SCHEMAS } from '../../shared/content/discovery.js';
import { serviceRegistries } from '../../services/registries.js';

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
  for (const registry of [serviceRegistries().chaos, serviceRegistries().control]) {
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

t.test('checkDrift and parseDriftAnswer: nesting deeper than 32 levels is refused, never thrown', async (t) => {
  const prefix = deadPrefix(config, 'jwks');
  const doc = driftDocument('jwks', prefix);
  let deep: unknown = 'x';
  for (let i = 0; i < 5000; i++) deep = [deep];
  t.match(checkDrift({ ...doc, extra: deep }, prefix), /deeper than 32/, 'a 5000-level array');
  let deepObject: unknown = false;
  for (let i = 0; i < 5000; i++) deepObject = { a: deepObject };
  t.match(checkDrift({ ...doc, extra: deepObject }, prefix), /deeper than 32/, 'a 5000-level object');
  const text = JSON.stringify(doc).replace(/}$/, `,"extra":${'['.repeat(5000)}${']'.repeat(5000)}}`);
  t.doesNotThrow(() => parseDriftAnswer('jwks', text, prefix));
  t.equal(parseDriftAnswer('jwks', text, prefix), undefined, 'the answer is refused');
  let shallow: unknown = false;
  for (let i = 0; i < 30; i++) shallow = { a: shallow };
  t.equal(checkDrift({ ...doc, extra: shallow }, prefix), undefined, '32 levels in all are fine');
});

/** Model answers that must never be served: each is the openid drift with one member changed. */
const BAD_VALUES: readonly [string, string, unknown][] = [
  ['scheme-relative URL', 'authorization_endpoint', '//evil.example/authorize'],
  ['leading space before a live URL', 'service_documentation', ' https://evil.example/docs'],
  ['scheme without slashes', 'registration_endpoint', 'https:evil.example/register'],
  ['javascript: URL', 'op_policy_uri', 'javascript:alert(1)'],
  ['URL inside text', 'op_tos_uri', 'see https://evil.example/tos'],
  ['the string "true"', 'claims_parameter_supported', 'true'],
  ['"YES"', 'request_parameter_supported', 'YES'],
  ['" Enabled "', 'request_parameter_supported', ' Enabled '],
  ['"1"', 'request_uri_parameter_supported', '1'],
  ['the number 1', 'request_uri_parameter_supported', 1],
  ['trailing space after a dead URL', 'token_endpoint', 'DEAD/token '],
  ['a dead URL with its scheme upper-cased', 'token_endpoint', 'HTTP-DEAD/token'],
  ['dot segments after the dead prefix', 'token_endpoint', 'DEAD/../../../status/200'],
  ['percent-encoded dot segments', 'token_endpoint', 'DEAD/%2e%2e/%2e%2e/status/200'],
  ['a live URL in the query of a dead one', 'token_endpoint', 'DEAD/token?next=https://evil.example/'],
  ['our host as user info of another', 'token_endpoint', 'http://chaos.test:8080@evil.example/semantic-drift/void/openid-configuration/token'],
  ['a relative reference', 'token_endpoint', '/status/200'],
  ['a host and path without scheme', 'token_endpoint', 'evil.example/token'],
  ['www. in text', 'service_documentation', 'docs at www.evil.example'],
  ['an e-mail address', 'service_documentation', 'write to someone@evil.example'],
  ['a backslash URL', 'token_endpoint', 'https:\\\\evil.example\\token'],
  ['fullwidth letters that normalise to a URL', 'token_endpoint', '\uff48\uff54\uff54\uff50\uff53\uff1a\uff0f\uff0fevil.example'],
  ['a zero-width space inside a scheme', 'token_endpoint', 'ht\u200btps://evil.example/token'],
  ['data: URL', 'service_documentation', 'data:text/html,<script>alert(1)</script>'],
  ['a live URL in a rel', 'links', undefined],
  ['a live URL as a member name', 'https://evil.example/x', false],
  ['a live mailto', 'service_documentation', 'mailto:someone@example.com'],
];

t.test('parseDriftAnswer refuses every string that could be followed to a live place, and every truthy claim', async (t) => {
  const prefix = deadPrefix(config, 'openid-configuration');
  const good = driftDocument('openid-configuration', prefix);
  for (const [name, member, raw] of BAD_VALUES) {
    const value = typeof raw === 'string' ? raw.replace(/^HTTP-DEAD/, prefix.replace(/^http/, 'HTTP')).replace(/^DEAD/, prefix) : raw;
    const doc = member === 'links' ? { ...good, links: [{ rel: 'https://evil.example/rel', href: `${prefix}/x` }] } : { ...good, [member]: value };
    t.type(checkDrift(doc, prefix), 'string', `${name}: checkDrift names a problem`);
    t.equal(parseDriftAnswer('openid-configuration', JSON.stringify(doc), prefix), undefined, `${name}: refused`);
  }
});

t.test('parseDriftAnswer accepts plain text, dead URLs of ours and .invalid addresses', async (t) => {
  for (const schema of SEMANTIC_SCHEMAS) {
    const prefix = deadPrefix(config, schema);
    const doc = driftDocument(schema, prefix);
    t.same(parseDriftAnswer(schema, JSON.stringify(doc), prefix), doc, `${schema}: the deterministic drift`);
  }
  const prefix = deadPrefix(config, 'agent-card');
  const card = driftDocument('agent-card', prefix);
  const variants: Record<string, Record<string, unknown>> = {
    'new names and paths': {
      name: 'Drifting Agent',
      description: 'Echoes A2A message/send requests, version 2.1 (no streaming).',
      url: `${prefix}/agents/echo-2`,
      provider: { organization: 'Nobody & Co.', url: `${prefix}/org` },
      documentationUrl: prefix,
      iconUrl: `${prefix}/img/icon_v2.png`,
      version: '2.1.0',
    },
    'a .invalid host': { documentationUrl: 'https://docs.nowhere.invalid/agent', iconUrl: 'http://cdn.example.invalid:8080/icon.png' },
    'the string "false" and the number 0': { capabilities: { streaming: 'false', pushNotifications: 0, stateTransitionHistory: false } },
    'a colon followed by a space': { description: 'Note: every link here is dead.' },
  };
  for (const [name, change] of Object.entries(variants)) {
    const doc = { ...card, ...change };
    t.same(parseDriftAnswer('agent-card', JSON.stringify(doc), prefix), doc, name);
  }
  const hostMeta = deadPrefix(config, 'host-meta');
  const jrd = { links: [{ rel: 'lrdd', type: 'application/jrd+json', template: `${hostMeta}/wf?resource={uri}` }, { rel: 'http://openid.net/specs/connect/1.0/issuer', href: 'acct:nobody@nowhere.invalid' }] };
  t.same(parseDriftAnswer('host-meta', JSON.stringify(jrd), hostMeta), jrd, 'a template with {uri}, a registered rel URI and an acct: on .invalid');
});
