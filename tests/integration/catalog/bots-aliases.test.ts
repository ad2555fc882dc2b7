// The original service's mode names on the bots host (issue 13): each alias
// answers exactly as the mode it names, the catalog lists the aliases, and the
// params module refuses aliases that name nothing.
import t from 'tap';
import { checkParamSpecs, oneOf } from '../../../shared/primitives/params.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';
import { startHttp } from '../../helpers/servers.js';

const ALIASES: readonly (readonly [path: string, alias: string, mode: string])[] = [
  ['/.well-known/apple-app-site-association', 'malformed-json', 'invalid-json'],
  ['/.well-known/assetlinks.json', 'malformed-json', 'invalid-json'],
  ['/manifest.webmanifest', 'malformed-json', 'invalid-json'],
  ['/.well-known/did.json', 'malformed-json', 'invalid-json'],
  ['/nodeinfo/2.0', 'malformed-json', 'invalid-json'],
  ['/nodeinfo/2.0', 'version-mismatch', 'version-contradicts-path'],
  ['/.well-known/gpc.json', 'malformed-json', 'invalid-json'],
  ['/.well-known/webfinger?resource=acct%3Abots%40bots.test', 'malformed-json', 'invalid-json'],
  ['/.well-known/atproto-did', 'invalid-did-format', 'invalid-syntax'],
  ['/.well-known/atproto-did', 'multiple-lines', 'several-lines'],
  ['/.well-known/nodeinfo', 'bad-link', 'dead-href'],
  // Issue 30: the rest of the original's names.
  ['/.well-known/apple-app-site-association', 'bad-appid', 'bad-team-id'],
  ['/manifest.webmanifest', 'wrong-start-url', 'cross-origin-start-url'],
  ['/.well-known/nodeinfo', 'version-mismatch', 'rel-href-mismatch'],
  ['/.well-known/nodeinfo', 'cross-host', 'other-host'],
];

async function fetchRaw(port: number, target: string): Promise<{ res: ParsedResponse; body: Buffer }> {
  const result = await rawExchange(port, get(target), { until: completeByLength });
  const res = parseHead(result.data);
  return { res, body: res.rest.subarray(0, Number(res.header('content-length'))) };
}

const withMode = (path: string, mode: string): string => `${path}${path.includes('?') ? '&' : '?'}mode=${mode}`;

t.test('an alias answers as the mode it names, which X-Chaos-Mode reports', async (t) => {
  const { port } = await startHttp(t, 'bots');
  for (const [path, alias, mode] of ALIASES) {
    const byAlias = await fetchRaw(port, withMode(path, alias));
    const byName = await fetchRaw(port, withMode(path, mode));
    t.equal(byAlias.res.status, 200, `${path} ${alias}: status`);
    t.equal(byName.res.status, 200);
    t.ok(byAlias.body.equals(byName.body), `${path} ${alias}: the bytes of ${mode}`);
    t.equal(byAlias.res.header('x-chaos-mode'), mode, `${path} ${alias}: reported as ${mode}`);
    t.equal(byAlias.res.header('x-chaos-lie'), byName.res.header('x-chaos-lie'));
  }
  const unknown = await fetchRaw(port, '/.well-known/atproto-did?mode=nope');
  t.equal(unknown.res.status, 400);
  t.match(JSON.parse(unknown.body.toString()).reason, /invalid-did-format/, 'the refusal names the aliases too');
});

t.test('the catalog lists each endpoint\'s aliases beside the modes', async (t) => {
  const { port } = await startHttp(t, 'bots');
  const result = await rawExchange(port, get('/', { Accept: 'application/json' }), { until: completeByLength });
  const catalog = JSON.parse(parseHead(result.data).rest.toString()) as { categories: { endpoints: { path: string; params: { name: string; accepted: string[]; aliases?: Record<string, string> }[] }[] }[] };
  const byPath = new Map(catalog.categories.flatMap((c) => c.endpoints).map((e) => [e.path, e.params.find((p) => p.name === 'mode')]));
  for (const [path, alias, mode] of ALIASES) {
    const mode_ = byPath.get(path.split('?')[0] as string);
    t.equal(mode_?.aliases?.[alias], mode, `${path}: ${alias} → ${mode}`);
    t.notOk(mode_?.accepted.includes(alias), 'an alias is not a mode of its own');
  }
  t.equal(byPath.get('/robots.txt')?.aliases, undefined, 'no aliases: no field');
});

t.test('oneOf aliases: parsed as their value; a bad alias table stops start-up', async (t) => {
  const mode = oneOf(['a', 'b'], { default: 'a', aliases: { x: 'b' } });
  t.same(mode.parse('x'), { ok: true, value: 'b', clamped: false });
  t.same(mode.parse('b'), { ok: true, value: 'b', clamped: false });
  t.equal(mode.parse('toString').ok, false, 'no inherited names');
  t.same(checkParamSpecs({ mode }), []);
  const wrong = oneOf(['a', 'b'], { default: 'a', aliases: { x: 'c' as 'a', a: 'b' } });
  t.same(checkParamSpecs({ mode: wrong }), ['mode: alias x names c, which it does not accept', 'mode: alias a is also a value']);
});
