import t from 'tap';
import { coalesce, COMPRESSION_ENCODED, negotiateEncoding, parseRange, resolveRange } from '../../shared/content/payload/index.js';
import { parseEntityTags, parseHttpDate, weakMatch } from '../../shared/content/headers.js';

t.test('parseRange: what is ignored and what is read', async (t) => {
  t.same(parseRange('bytes=0-99'), [{ kind: 'int', first: 0, last: 99 }]);
  t.same(parseRange('Bytes=5-'), [{ kind: 'int', first: 5, last: undefined }]);
  t.same(parseRange('bytes=-7'), [{ kind: 'suffix', length: 7 }]);
  t.same(parseRange('bytes= 1-2 ,, 3-4 '), [
    { kind: 'int', first: 1, last: 2 },
    { kind: 'int', first: 3, last: 4 },
  ]);
  for (const bad of ['bytes=', 'bytes=,', 'bytes=-', 'bytes=1-2-3', 'bytes=a-1', 'bytes=2-1', 'pages=1-2', 'bytes 1-2', '=1-2', 'bytes=+1-2', 'bytes=1 -2']) {
    t.equal(parseRange(bad), undefined, JSON.stringify(bad));
  }
  t.ok(parseRange(`bytes=${Array.from({ length: 16 }, (_, i) => `${i}-${i}`).join(',')}`), '16 ranges are read');
  t.equal(parseRange(`bytes=${Array.from({ length: 17 }, (_, i) => `${i}-${i}`).join(',')}`), undefined, '17 are ignored');
});

t.test('resolveRange and coalesce', async (t) => {
  t.same(resolveRange({ kind: 'int', first: 10, last: undefined }, 100), [10, 99]);
  t.equal(resolveRange({ kind: 'int', first: 100, last: 200 }, 100), undefined);
  t.same(resolveRange({ kind: 'suffix', length: 10 }, 100), [90, 99]);
  t.same(resolveRange({ kind: 'suffix', length: 10 }, 100, true), [0, 9], 'suffix-confusion');
  t.same(resolveRange({ kind: 'suffix', length: 1000 }, 100, true), [0, 99]);
  t.equal(resolveRange({ kind: 'suffix', length: 0 }, 100), undefined);
  t.same(coalesce([[50, 59], [0, 9], [20, 29]]), [[50, 59], [0, 9], [20, 29]], 'disjoint: request order');
  t.same(coalesce([[50, 59], [0, 9], [10, 30], [25, 49]]), [[0, 59]], 'a chain (overlaps and touches) merges into one');
  t.same(coalesce([[100, 109], [0, 9], [5, 20]]), [[100, 109], [0, 20]], 'merged into the earlier position');
});

t.test('entity tags and HTTP dates', async (t) => {
  t.same(parseEntityTags('"a", W/"b" ,"c,d"'), ['"a"', 'W/"b"', '"c,d"']);
  t.same(parseEntityTags(' * '), ['*']);
  t.same(parseEntityTags(', "a",'), ['"a"']);
  t.equal(parseEntityTags('abc'), undefined);
  t.equal(parseEntityTags('"a" "b"'), undefined);
  t.equal(parseEntityTags('"a'), undefined);
  t.ok(weakMatch(['W/"x"'], '"x"'));
  t.ok(weakMatch(['"x"'], 'W/"x"'));
  t.notOk(weakMatch(['"y"'], '"x"'));
  const ms = Date.UTC(1994, 10, 6, 8, 49, 37);
  t.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), ms);
  t.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), ms);
  t.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), ms, 'asctime is read as UTC');
  for (const bad of ['1994-11-06', 'yesterday', 'Sun, 06 Nov 1994 08:49:37 +0000', '']) t.equal(parseHttpDate(bad), undefined, bad);
});

t.test('negotiateEncoding edge cases', async (t) => {
  t.equal(negotiateEncoding(undefined), 'identity');
  t.equal(negotiateEncoding('gzip;q=1.0001'), 'identity', 'q with four decimals is malformed');
  t.equal(negotiateEncoding('gzip;q=0.001'), 'gzip');
  t.equal(negotiateEncoding('gzip;level=1, br;q=0.1'), 'br', 'unknown parameters make the element malformed');
  t.equal(negotiateEncoding('gzip, gzip;q=0'), 'gzip', 'the first entry for a coding wins');
  t.equal(negotiateEncoding('br;q=0.5, identity;q=0.5'), 'br', 'a tie prefers a coding');
});

t.test('encoded bodies are stable across starts', async (t) => {
  // node's gzip header: magic, CM=8, no flags, MTIME 0, XFL 0, OS 3 (unix).
  t.equal(COMPRESSION_ENCODED.gzip.subarray(0, 10).toString('hex'), '1f8b0800000000000003');
  t.ok(COMPRESSION_ENCODED.br.length < COMPRESSION_ENCODED.identity.length);
});
