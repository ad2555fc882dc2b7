// /infinite on the control host, asserted on the wire: the spec's header table,
// the default fields, `fields`, `links`, the 20 KB cap, errors (404, 414, 400)
// and determinism. The per-IP limit has its own file (infinite/limit.test.ts).
import t from 'tap';
import {
  BODY_CAP, DEFAULT_FIELDS, INFINITE_TYPES, renderInfinite, type InfiniteFormat, type InfiniteType,
} from '../../../services/control/infinite/index.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';
import { startHttp, testConfig } from '../../helpers/servers.js';
import { anchorHrefs, wellFormedProblems } from '../../helpers/infinite-wellformed.js';

interface Got {
  readonly head: ParsedResponse;
  readonly body: Buffer;
}

async function fetchRaw(port: number, path: string, method = 'GET'): Promise<Got> {
  const until = method === 'HEAD' ? (d: Buffer) => d.indexOf('\r\n\r\n') !== -1 : completeByLength;
  const r = await rawExchange(port, get(path, {}, method), { until });
  const head = parseHead(r.data);
  const length = method === 'HEAD' ? 0 : Number(head.header('content-length') ?? 0);
  return { head, body: head.rest.subarray(0, length) };
}

const chaosLines = (head: ParsedResponse): string[] => head.headerLines.filter(([n]) => n.toLowerCase().startsWith('x-chaos-')).map(([n, v]) => `${n}: ${v}`);

/** A tail whose default page or document is cut at the cap. */
function cutTail(format: InfiniteFormat, type: InfiniteType): string {
  for (let i = 0; i < 1000; i++) if (renderInfinite(format, type, `cut/${i}`).truncated) return `cut/${i}`;
  throw new Error(`no ${format} ${type} tail is cut among 1000`);
}

t.test('/infinite', async (t) => {
  const { port } = await startHttp(t, 'control', testConfig({ RATE_LIMIT_INFINITE: '0' }));

  t.test('html users and products: exactly the spec\'s header table', async (t) => {
    for (const type of ['users', 'products'] as const) {
      const { head, body } = await fetchRaw(port, `/infinite/html/${type}/alice`);
      t.equal(head.status, 200);
      t.equal(head.header('content-type'), 'text/html; charset=utf-8');
      t.equal(head.header('cache-control'), 'public, max-age=86400');
      t.equal(head.header('x-robots-tag'), 'noindex, nofollow');
      t.equal(head.header('x-not-payload'), 'infinite');
      t.equal(head.header('x-not-infinite-type'), type);
      t.equal(head.header('x-not-infinite-format'), 'html');
      t.equal(head.header('x-not-infinite-truncated'), undefined, 'absent when the body was not cut');
      t.equal(Number(head.header('content-length')), body.length);
      t.same(chaosLines(head), ['X-Chaos-Origin: control'], 'control origin; no twin, so no X-Chaos-Counterpart');
      t.same(wellFormedProblems(body.toString()), []);
      t.match(body.toString(), /<footer>\n<p>Generated content: /, 'a visible footer says it is generated');
      t.equal(body.toString(), renderInfinite('html', type, 'alice').body.toString(), 'the wire carries the generator\'s bytes');
    }
  });

  t.test('every other combination: the same headers, for its own format and type', async (t) => {
    for (const format of ['json', 'html'] as const) {
      for (const type of INFINITE_TYPES) {
        const { head } = await fetchRaw(port, `/infinite/${format}/${type}/bob/2`);
        t.equal(head.status, 200, `${format}/${type}`);
        t.equal(head.header('content-type'), format === 'json' ? 'application/json' : 'text/html; charset=utf-8');
        t.equal(head.header('cache-control'), 'public, max-age=86400');
        t.equal(head.header('x-robots-tag'), 'noindex, nofollow');
        t.equal(head.header('x-not-payload'), 'infinite');
        t.equal(head.header('x-not-infinite-type'), type);
        t.equal(head.header('x-not-infinite-format'), format);
        t.same(chaosLines(head), ['X-Chaos-Origin: control']);
      }
    }
  });

  t.test('json: the default fields per type, in the spec\'s order, plus _note', async (t) => {
    const table: Record<InfiniteType, string[]> = {
      comments: ['id', 'body', 'author_id', 'post_id', 'created_at'],
      posts: ['id', 'title', 'body', 'author_id', 'published_at', 'comment_count'],
      products: ['id', 'sku', 'title', 'description', 'price', 'currency', 'in_stock'],
      users: ['id', 'username', 'name', 'email', 'bio', 'joined_at', 'post_count'],
    };
    for (const type of INFINITE_TYPES) {
      t.same(DEFAULT_FIELDS[type], table[type], `${type}: the module's table is the spec's`);
      const { head, body } = await fetchRaw(port, `/infinite/json/${type}/defaults`);
      t.equal(head.status, 200);
      const doc = JSON.parse(body.toString()) as Record<string, unknown>;
      t.same(Object.keys(doc), [...table[type], '_note'], type);
      t.match(doc._note, /^Generated content: /, '_note says the content is generated');
    }
  });

  t.test('fields: a selection in the order asked, unknown names seeded per name', async (t) => {
    const full = JSON.parse((await fetchRaw(port, '/infinite/json/users/sel')).body.toString()) as Record<string, unknown>;
    const { head, body } = await fetchRaw(port, '/infinite/json/users/sel?fields=email,id,favorite_color');
    t.equal(head.status, 200);
    const doc = JSON.parse(body.toString()) as Record<string, unknown>;
    t.same(Object.keys(doc), ['email', 'id', 'favorite_color', '_note']);
    t.equal(doc.email, full.email, 'selection does not change values');
    t.equal(doc.id, full.id);
    t.match(doc.favorite_color, /^[a-z]+-[a-z]+-\d+$/);
    const again = JSON.parse((await fetchRaw(port, '/infinite/json/users/sel?fields=favorite_color')).body.toString()) as Record<string, unknown>;
    t.equal(again.favorite_color, doc.favorite_color, 'the same value asked alone');
    const html = await fetchRaw(port, '/infinite/html/users/sel?fields=email');
    t.equal(html.body.toString(), renderInfinite('html', 'users', 'sel').body.toString(), 'html ignores fields');
  });

  t.test('fields: bad lists are a 400 with the spec\'s error shape and no X-Chaos-*', async (t) => {
    const cases: [string, RegExp][] = [
      ['id,,name', /empty field name/],
      ['', /empty field name/],
      ['id,na%20me', /invalid field name "na me"/],
      ['na+me', /invalid field name "na me"/],
      ['a/b', /invalid field name "a\/b"/],
      ['a:b', /invalid field name "a:b"/],
      ['%C3%A9', /invalid field name "é"/],
      ['a%00', /invalid field name/],
      [`${'a'.repeat(65)}`, /invalid field name/],
      [Array.from({ length: 33 }, (_, i) => `f${i}`).join(','), /at most 32 fields \(got 33\)/],
    ];
    for (const [value, reason] of cases) {
      const { head, body } = await fetchRaw(port, `/infinite/json/users/bad?fields=${value}`);
      t.equal(head.status, 400, JSON.stringify(value.slice(0, 20)));
      t.equal(head.header('x-robots-tag'), 'noindex, nofollow', 'the router\'s 400 keeps crawlers out too');
      const error = JSON.parse(body.toString()) as Record<string, unknown>;
      t.same(Object.keys(error), ['endpoint', 'error', 'requested', 'reason', 'param', 'accepted']);
      t.equal(error.error, 'invalid_parameter');
      t.equal(error.param, 'fields');
      t.equal(error.requested, decodeURIComponent(value.replace(/\+/g, ' ')));
      t.match(error.reason, reason);
      t.same(chaosLines(head), []);
    }
    const limits = await fetchRaw(port, `/infinite/json/users/ok?fields=${Array.from({ length: 32 }, (_, i) => `f${i}`).join(',')},${'z'.repeat(64)}`);
    t.equal(limits.head.status, 400, '33 names including a 64-character one is still too many');
    const edge = await fetchRaw(port, `/infinite/json/users/ok?fields=${Array.from({ length: 31 }, (_, i) => `f${i}`).join(',')},${'z'.repeat(64)}`);
    t.equal(edge.head.status, 200, '32 names, one of 64 characters: accepted');
    t.equal(Object.keys(JSON.parse(edge.body.toString()) as object).length, 33);
  });

  t.test('fields: open-ended names (capitals, dots, dashes), prototype names as plain own keys', async (t) => {
    const names = [
      'firstName', 'Email', 'na-me', 'a.b', '-', '.', 'X_1', 'toString', '__proto__', 'constructor', 'hasOwnProperty',
      'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf', 'email',
    ];
    const { head, body } = await fetchRaw(port, `/infinite/json/users/open?fields=${names.join(',')}`);
    t.equal(head.status, 200);
    const text = body.toString();
    const doc = JSON.parse(text) as Record<string, unknown>;
    t.equal(Object.getPrototypeOf(doc), Object.prototype, 'JSON.parse keeps the prototype: __proto__ arrived as an own key');
    t.same(Object.keys(doc), [...names, '_note'], 'every name, in the order asked, then _note');
    for (const name of names) {
      t.ok(Object.hasOwn(doc, name), `${name} is an own key`);
      t.equal(typeof Object.getOwnPropertyDescriptor(doc, name)?.value, 'string', `${name} is a string`);
    }
    t.match(text, /^\{"firstName":"[a-z]+-[a-z]+-\d+","Email":"/, 'unknown names get a generic seeded string');
    const full = JSON.parse((await fetchRaw(port, '/infinite/json/users/open')).body.toString()) as Record<string, unknown>;
    t.equal(doc.email, full.email, 'names are case-sensitive: email is the user\'s email');
    t.not(Object.getOwnPropertyDescriptor(doc, 'Email')?.value, full.email, 'Email is another, unknown, field');
    for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
      const alone = JSON.parse((await fetchRaw(port, `/infinite/json/users/open?fields=${name}`)).body.toString()) as Record<string, unknown>;
      t.same(Object.keys(alone), [name, '_note']);
      t.equal(Object.getOwnPropertyDescriptor(alone, name)?.value, Object.getOwnPropertyDescriptor(doc, name)?.value, `${name}: the same value asked alone`);
    }
    t.equal(({} as Record<string, unknown>).toString, Object.prototype.toString, 'Object.prototype untouched');
    for (const type of INFINITE_TYPES) {
      const r = await fetchRaw(port, `/infinite/json/${type}/open?fields=toString,__proto__,constructor`);
      const d = JSON.parse(r.body.toString()) as Record<string, unknown>;
      t.same(Object.keys(d), ['toString', '__proto__', 'constructor', '_note'], type);
      t.ok(['toString', '__proto__', 'constructor'].every((n) => typeof Object.getOwnPropertyDescriptor(d, n)?.value === 'string'), `${type}: strings`);
    }
  });

  t.test('links: 0 to 10, default 10, clamped silently', async (t) => {
    const count = async (query: string): Promise<{ n: number; head: ParsedResponse }> => {
      const { head, body } = await fetchRaw(port, `/infinite/html/users/clamp${query}`);
      t.equal(head.status, 200, query);
      t.same(wellFormedProblems(body.toString()), []);
      return { n: anchorHrefs(body.toString()).filter((h) => h.startsWith('/infinite/html/')).length, head };
    };
    t.equal((await count('')).n, 10, 'default 10');
    t.equal((await count('?links=3')).n, 3);
    t.equal((await count('?links=0')).n, 0);
    for (const [query, n] of [['?links=99', 10], ['?links=-5', 0], ['?links=99999999999999999999', 10]] as const) {
      const r = await count(query);
      t.equal(r.n, n, query);
      t.equal(r.head.header('x-chaos-clamped'), undefined, `${query}: silently (no X-Chaos-Clamped)`);
      t.same(chaosLines(r.head), ['X-Chaos-Origin: control']);
    }
    const clamped = await fetchRaw(port, '/infinite/html/users/clamp?links=99');
    const ten = await fetchRaw(port, '/infinite/html/users/clamp?links=10');
    t.equal(clamped.body.toString(), ten.body.toString(), 'links=99 is exactly links=10');
    const bad = await fetchRaw(port, '/infinite/html/users/clamp?links=many');
    t.equal(bad.head.status, 400, 'not an integer: 400');
    t.equal((JSON.parse(bad.body.toString()) as { param: string }).param, 'links');
    const json = await fetchRaw(port, '/infinite/json/users/clamp?links=3');
    t.equal(json.body.toString(), renderInfinite('json', 'users', 'clamp').body.toString(), 'json ignores links');
  });

  t.test('the 20 KB cap: X-Not-Infinite-Truncated only when cut; JSON valid, HTML well-formed', async (t) => {
    for (const format of ['json', 'html'] as const) {
      for (const type of INFINITE_TYPES) {
        const tail = cutTail(format, type);
        const { head, body } = await fetchRaw(port, `/infinite/${format}/${type}/${tail}`);
        t.equal(head.status, 200);
        t.equal(head.header('x-not-infinite-truncated'), 'true', `${format}/${type}/${tail} was cut`);
        t.ok(body.length <= BODY_CAP && body.length > BODY_CAP - 300, `${body.length} bytes, at most ${BODY_CAP}`);
        t.equal(Number(head.header('content-length')), body.length);
        if (format === 'json') {
          const doc = JSON.parse(body.toString()) as Record<string, string>;
          t.same(Object.keys(doc), [...DEFAULT_FIELDS[type], '_note'], 'every field kept');
          t.match(doc._note, /cut at the 20 KB body cap/);
          t.ok(Object.values(doc).some((v) => typeof v === 'string' && v.endsWith(' …')), 'the long text ends with a cut mark');
        } else {
          t.same(wellFormedProblems(body.toString()), [], 'every tag still closes');
          t.match(body.toString(), /class="truncated"/);
          t.match(body.toString(), /<footer>\n<p>Generated content: /, 'the footer survives');
        }
      }
    }
    // Unknown names are short, so a document with 32 of them stays whole.
    const many = await fetchRaw(port, `/infinite/json/posts/whole?fields=${Array.from({ length: 32 }, (_, i) => `x${i}`).join(',')}`);
    t.equal(many.head.header('x-not-infinite-truncated'), undefined);
  });

  t.test('unknown format or type: a clear 404, not the catalog', async (t) => {
    const format = await fetchRaw(port, '/infinite/xml/users/a');
    t.equal(format.head.status, 404);
    t.equal(format.head.header('content-type'), 'application/json');
    t.equal(format.head.header('x-robots-tag'), 'noindex, nofollow');
    const fe = JSON.parse(format.body.toString()) as Record<string, unknown>;
    t.same(fe, {
      endpoint: '/infinite/{format}/{type}/{path*}',
      error: 'not_found',
      requested: 'xml',
      reason: 'unknown format "xml": use one of json, html',
      param: 'format',
      accepted: ['json', 'html'],
    });
    t.same(chaosLines(format.head), [], 'a real failure carries no X-Chaos-*');
    const type = await fetchRaw(port, '/infinite/json/widgets/a');
    t.equal(type.head.status, 404);
    t.match((JSON.parse(type.body.toString()) as { reason: string }).reason, /unknown type "widgets": use one of users, products, posts, comments/);
    const page = await fetchRaw(port, '/infinite/html/widgets/a');
    t.equal(page.head.status, 404);
    t.equal(page.head.header('content-type'), 'text/html; charset=utf-8');
    t.equal(page.head.header('x-robots-tag'), 'noindex, nofollow');
    t.same(wellFormedProblems(page.body.toString()), []);
    t.match(page.body.toString(), /unknown type &#34;widgets&#34;/);
    t.same(chaosLines(page.head), []);
    const escaped = await fetchRaw(port, '/infinite/%3Cb%3E/users/a');
    t.equal(escaped.head.status, 404);
    t.equal(escaped.head.header('content-type'), 'application/json', 'an unknown format answers in JSON');
    t.equal((JSON.parse(escaped.body.toString()) as { requested: string }).requested, '<b>');
    const hostile = await fetchRaw(port, '/infinite/html/%3Cscript%3E/a');
    t.equal(hostile.head.status, 404);
    t.notMatch(hostile.body.toString(), /<script>/, 'echoed values are escaped');
    t.same(wellFormedProblems(hostile.body.toString()), []);
  });

  t.test('no tail: an unknown path (the catalog, 404)', async (t) => {
    for (const path of ['/infinite/json/users', '/infinite/json/users/', '/infinite/json', '/infinite']) {
      const { head } = await fetchRaw(port, path);
      t.equal(head.status, 404, path);
      t.equal(head.header('x-not-payload'), undefined);
    }
  });

  t.test('tails are bounded: 1024 characters and 64 segments, else 414', async (t) => {
    const ok = await fetchRaw(port, `/infinite/json/users/${'a'.repeat(1024)}`);
    t.equal(ok.head.status, 200, '1024 characters');
    const deep = await fetchRaw(port, `/infinite/json/users/${Array.from({ length: 64 }, () => 's').join('/')}`);
    t.equal(deep.head.status, 200, '64 segments');
    for (const tail of ['a'.repeat(1025), Array.from({ length: 65 }, () => 's').join('/'), '/'.repeat(64)]) {
      const { head, body } = await fetchRaw(port, `/infinite/html/users/${tail}`);
      t.equal(head.status, 414, `${tail.length} characters`);
      t.equal(head.header('content-type'), 'application/json');
      t.equal(head.header('x-robots-tag'), 'noindex, nofollow');
      t.same(chaosLines(head), []);
      const error = JSON.parse(body.toString()) as Record<string, unknown>;
      t.equal(error.error, 'uri_too_long');
      t.equal(error.param, 'path');
      t.match(error.reason, /at most 1024 characters and 64 segments/);
      t.ok((error.requested as string).length <= 81, 'the echo is shortened');
    }
    const malformed = await fetchRaw(port, '/infinite/json/users/a%zz');
    t.equal(malformed.head.status, 400, 'malformed percent-encoding');
    t.equal(malformed.head.header('x-robots-tag'), 'noindex, nofollow');
  });

  t.test('the same URL gives the same bytes; different URLs differ', async (t) => {
    const paths = ['/infinite/html/users/same', '/infinite/json/posts/same/1', '/infinite/html/comments/same/1/2'];
    for (const path of paths) {
      const a = await fetchRaw(port, path);
      const b = await fetchRaw(port, path);
      t.equal(a.body.toString('latin1'), b.body.toString('latin1'), path);
    }
    const bodies = new Set<string>();
    for (const type of INFINITE_TYPES) {
      for (const tail of ['x', 'y', 'x/y', 'a%20b', 'a+b', 'A%2Fb', 'a/b']) {
        bodies.add((await fetchRaw(port, `/infinite/json/${type}/${tail}`)).body.toString());
      }
    }
    t.equal(bodies.size, 28, 'seven tails under four types: 28 different documents');
  });

  t.test('other methods: 405 from the router, no X-Chaos-*', async (t) => {
    const { head } = await fetchRaw(port, '/infinite/html/users/post', 'POST');
    t.equal(head.status, 405);
    t.equal(head.header('allow'), 'GET, HEAD');
    t.equal(head.header('x-robots-tag'), 'noindex, nofollow');
    t.same(chaosLines(head), []);
  });

  t.test('HEAD: the same head, no body', async (t) => {
    const got = await fetchRaw(port, '/infinite/html/products/head');
    const head = await fetchRaw(port, '/infinite/html/products/head', 'HEAD');
    t.equal(head.head.status, 200);
    t.equal(head.head.header('content-length'), got.head.header('content-length'));
    t.equal(head.head.header('x-not-infinite-type'), 'products');
    t.equal(head.head.rest.length, 0);
  });
});
