import t from 'tap';
import { bool, checkParamSpecs, grammar, int, list, num, oneOf, parseParams, splitQuery, str } from '../../shared/primitives/params.js';

const specs = {
  ms: int({ min: 0, max: 15000, default: 1000 }),
  p: num({ min: 0, max: 1, default: 0.5 }),
  mode: oneOf(['a', 'b-c'], { default: 'a' }),
  lie: bool({ default: false }),
  seed: str({ maxLength: 8, default: '42' }),
  id: str({ minLength: 1, maxLength: 4 }),
};

type Row = [query: string, expect: Record<string, unknown> | { error: string; param: string; requested?: string | null }, clamped?: string[]];

// One table for every rule of DESIGN §4.
const rows: Row[] = [
  ['', { ms: 1000, p: 0.5, mode: 'a', lie: false, seed: '42', id: undefined }],
  ['ms=0', { ms: 0 }],
  ['ms=15000', { ms: 15000 }],
  ['ms=15001', { ms: 15000 }, ['ms=15000']],
  ['ms=-5', { ms: 0 }, ['ms=0']],
  ['ms=%2B7', { ms: 7 }],
  ['ms=+7', { error: 'invalid_parameter', param: 'ms', requested: ' 7' }],
  ['ms=99999999999999999999999', { ms: 15000 }, ['ms=15000']],
  ['ms=abc', { error: 'invalid_parameter', param: 'ms', requested: 'abc' }],
  ['ms=1.5', { error: 'invalid_parameter', param: 'ms', requested: '1.5' }],
  ['ms=', { error: 'invalid_parameter', param: 'ms', requested: '' }],
  ['ms=0x10', { error: 'invalid_parameter', param: 'ms' }],
  ['ms=1e3', { error: 'invalid_parameter', param: 'ms' }],
  ['ms=%31%30', { ms: 10 }],
  ['ms=5&ms=9', { ms: 5 }],
  ['p=0.25', { p: 0.25 }],
  ['p=.5', { p: 0.5 }],
  ['p=1e-1', { p: 0.1 }],
  ['p=2', { p: 1 }, ['p=1']],
  ['p=-0.1', { p: 0 }, ['p=0']],
  ['p=NaN', { error: 'invalid_parameter', param: 'p' }],
  ['p=Infinity', { error: 'invalid_parameter', param: 'p' }],
  ['mode=b-c', { mode: 'b-c' }],
  ['mode=nope', { error: 'invalid_parameter', param: 'mode', requested: 'nope' }],
  ['mode=A', { error: 'invalid_parameter', param: 'mode' }],
  ['lie=true', { lie: true }],
  ['lie=1', { lie: true }],
  ['lie=FALSE', { lie: false }],
  ['lie=maybe', { error: 'invalid_parameter', param: 'lie' }],
  ['seed=a+b', { seed: 'a b' }],
  ['seed=%E2%9C%93', { seed: '✓' }],
  ['seed=123456789', { error: 'invalid_parameter', param: 'seed' }],
  ['seed=%E0%A4%A', { error: 'malformed_query', param: 'seed' }],
  ['id=', { error: 'invalid_parameter', param: 'id', requested: '' }],
  ['id=abcd', { id: 'abcd' }],
  ['id=abcde', { error: 'invalid_parameter', param: 'id' }],
  ['unknown=1&&=x', { ms: 1000 }],
];

for (const [query, expected, clamped = []] of rows) {
  t.test(`?${query}`, async (t) => {
    const result = parseParams('/x', specs, splitQuery(query), undefined);
    if ('error' in expected) {
      t.equal(result.ok, false);
      if (result.ok) return;
      t.equal(result.error.endpoint, '/x');
      t.equal(result.error.error, expected.error);
      t.equal(result.error.param, expected.param);
      if ('requested' in expected) t.equal(result.error.requested, expected.requested);
      t.ok(result.error.reason.startsWith(String(expected.param)), 'reason names the parameter');
      t.ok(result.error.accepted, 'says what is accepted');
      return;
    }
    t.equal(result.ok, true);
    if (!result.ok) return;
    t.match(result.values, expected);
    t.same(result.clamped, clamped);
  });
}

t.test('required parameters', async (t) => {
  const r = parseParams('/r', { id: str({ maxLength: 10, required: true }) }, splitQuery(''), undefined);
  t.equal(r.ok, false);
  if (!r.ok) t.match(r.error, { error: 'missing_parameter', param: 'id', requested: null });
});

t.test('path parameters come from the route, not the query', async (t) => {
  const code = { code: int({ min: 100, max: 599, required: true, in: 'path' }) };
  const r = parseParams('/status/{code}', code, splitQuery('code=200'), new Map([['code', '700']]));
  t.ok(r.ok);
  if (r.ok) {
    t.equal(r.values.code, 599);
    t.same(r.clamped, ['code=599']);
  }
});

t.test('silent clamps are not reported', async (t) => {
  const r = parseParams('/i', { links: int({ min: 0, max: 10, default: 10, silentClamp: true }) }, splitQuery('links=99'), undefined);
  t.ok(r.ok);
  if (r.ok) {
    t.equal(r.values.links, 10);
    t.same(r.clamped, []);
  }
});

t.test('checkParamSpecs finds defaults outside the range', async (t) => {
  t.same(checkParamSpecs(specs), []);
  t.equal(checkParamSpecs({ x: int({ min: 1, max: 5, default: 9 }) }).length, 1);
  t.equal(checkParamSpecs({ m: oneOf(['a'], { default: 'b' as 'a' }) }).length, 1);
  t.equal(checkParamSpecs({ s: str({ maxLength: 2, default: 'long' }) }).length, 1);
});

t.test('a long bad value is echoed shortened', async (t) => {
  const r = parseParams('/x', specs, splitQuery(`mode=${'z'.repeat(5000)}`), undefined);
  t.equal(r.ok, false);
  if (!r.ok) t.equal(r.error.requested, `${'z'.repeat(256)}…`);
});

t.test('splitQuery: the first value of a name wins; getAll keeps every occurrence in order', async (t) => {
  const q = splitQuery('a=1&b=x&a=2&a=%33&b');
  t.equal(q.get('a'), '1', 'a Map of first values, as before');
  t.same(q.getAll('a'), ['1', '2', '%33'], 'still percent-encoded');
  t.same(q.getAll('b'), ['x', '']);
  t.same(q.getAll('c'), []);
});

t.test('list(): a repeatable parameter, each item parsed, at most maxItems', async (t) => {
  const specs = {
    tag: list({ maxItems: 3, item: 'a lowercase word', parseItem: (raw) => (/^[a-z]+$/.test(raw) ? { ok: true, value: raw.toUpperCase() } : { ok: false, reason: 'must be a lowercase word' }) }),
    n: int({ min: 0, max: 9, default: 1 }),
  };
  const parse = (query: string) => parseParams('/l', specs, splitQuery(query), undefined);
  const ok = (query: string): unknown => {
    const r = parse(query);
    return r.ok ? r.values.tag : r.error;
  };
  t.equal(ok(''), undefined, 'absent: undefined');
  t.same(ok('tag=a'), ['A']);
  t.same(ok('tag=a&n=2&tag=b&tag=c'), ['A', 'B', 'C'], 'every occurrence, in order, other parameters between');
  t.same(ok('tag=%61b'), ['AB'], 'each item decoded');
  t.match(ok('tag=a&tag=b&tag=c&tag=d'), { error: 'invalid_parameter', param: 'tag', reason: 'tag is given 4 times; at most 3' });
  t.match(ok('tag=a&tag=B1'), { error: 'invalid_parameter', param: 'tag', reason: 'tag "B1": must be a lowercase word', requested: 'a&B1' });
  t.match(ok('tag=a&tag=%ZZ'), { error: 'malformed_query', param: 'tag', requested: '%ZZ' });
  t.same(checkParamSpecs(specs), [], 'no default to check');
  t.equal(specs.tag.kind, 'list');
  t.equal(specs.tag.accepted, 'repeatable, at most 3, each a lowercase word');
  // Without the repeated occurrences (a plain Map, as /random builds), the one value is the list.
  const plain = parseParams('/l', specs, new Map([['tag', 'z']]), undefined);
  t.same(plain.ok && plain.values.tag, ['Z']);
});

t.test('grammar(): a string parsed into a typed value or a 400 with its reason', async (t) => {
  const spec = { size: grammar({ accepted: ['s', 'n:N'], parse: (raw) => (raw === 's' ? { ok: true, value: 1 } : /^n:\d$/.test(raw) ? { ok: true, value: Number(raw.slice(2)) } : { ok: false, reason: 'must be s or n:N' }) }) };
  const r = parseParams('/g', spec, splitQuery('size=n:7'), undefined);
  t.same(r.ok && r.values, { size: 7 });
  const bad = parseParams('/g', spec, splitQuery('size=n:77'), undefined);
  t.match(!bad.ok && bad.error, { error: 'invalid_parameter', param: 'size', reason: 'size must be s or n:N', accepted: ['s', 'n:N'] });
  const none = parseParams('/g', spec, splitQuery(''), undefined);
  t.same(none.ok && none.values, { size: undefined });
});
