// The infinite-content generator called directly: golden vectors, the 20 KB
// cap over many tails, well-formed HTML, field independence, relations held
// by the tails, link counts and the `links` prefix rule.
import { createHash } from 'node:crypto';
import t from 'tap';
import {
  BODY_CAP, DEFAULT_FIELDS, INFINITE_TYPES, MAX_TAIL_CHARS, MAX_TAIL_SEGMENTS, renderInfinite, segmentCount,
  type InfiniteFormat, type InfiniteType,
} from '../../../services/control/infinite/index.js';
import { anchorHrefs, INFINITE_HREF_RE, wellFormedProblems } from '../../helpers/infinite-wellformed.js';

type Doc = Record<string, unknown>;
const json = (type: InfiniteType, tail: string, fields?: readonly string[]): Doc =>
  JSON.parse(renderInfinite('json', type, tail, fields ? { fields } : {}).body.toString()) as Doc;
const html = (type: InfiniteType, tail: string, links?: number): string =>
  renderInfinite('html', type, tail, links === undefined ? {} : { links }).body.toString();
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex').slice(0, 32);

t.test('the well-formedness checker itself catches broken pages', async (t) => {
  const good = '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"></head><body><p>a &#38; b</p></body>\n</html>\n';
  t.same(wellFormedProblems(good), []);
  t.not(wellFormedProblems(good.replace('</p>', '')).length, 0, 'unclosed element');
  t.not(wellFormedProblems(good.replace('<p>a', '<p><b>a').replace('</p>', '</p></b>')).length, 0, 'misnested');
  t.not(wellFormedProblems(good.replace('&#38;', '&')).length, 0, 'stray &');
  t.not(wellFormedProblems(good.replace('a &#38; b', 'a < b')).length, 0, 'raw <');
  t.not(wellFormedProblems(good.replace('charset="utf-8"', 'charset=utf-8')).length, 0, 'unquoted attribute');
  t.not(wellFormedProblems(good.slice(0, -8)).length, 0, 'cut before </html>');
});

// Pinned bytes: a change here changes every URL's content for every user of
// the service (the spec promises the same URL gives the same response any day).
const GOLDEN: readonly (readonly [InfiniteFormat, InfiniteType, string, string, boolean])[] = [
  ['json', 'users', 'alice', '31e35f1c75612a93abdbc233f14fe1a8', false],
  ['html', 'users', 'alice', 'edb4466cc023e15cdae9091acec3ff45', false],
  ['json', 'products', 'blue/kettle', '5393c89aa8aa4855f1531734818db6e4', false],
  ['html', 'products', 'blue/kettle', 'c39fcc57ce12f64f6004a5c0f77268b8', false],
  ['json', 'posts', 'alice/3', '7c9906cbafdef4503c312a0c4b42f345', false],
  ['html', 'posts', 'alice/3', '5bef61ff52a099b7383b96b18645e751', false],
  ['json', 'comments', 'alice/3/2', '98da5c164a0fd72f0e6b0cf6207e960d', false],
  ['html', 'comments', 'alice/c7', '226aee342bfd9d71ea12722f58c954b5', false],
  ['json', 'posts', 'tail-25', 'a72664434e4509b7255fe6eeb16be13f', true],
  ['html', 'users', 'tail-15', 'cfc6ec99324ff120b606e4f3240c69b4', true],
];

t.test('golden vectors: the same (format, type, tail) gives the same bytes, for good', async (t) => {
  for (const [format, type, tail, digest, truncated] of GOLDEN) {
    const r = renderInfinite(format, type, tail);
    t.equal(sha(r.body), digest, `${format}/${type}/${tail}`);
    t.equal(r.truncated, truncated, `${format}/${type}/${tail} truncated`);
  }
});

t.test('first documents of each type: the spec\'s fields in order, values that look real', async (t) => {
  for (const type of INFINITE_TYPES) t.same(Object.keys(json(type, 'alice')), [...DEFAULT_FIELDS[type], '_note'], type);
  const iso = /^20(1[2-9]|2[0-5])-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
  for (let i = 0; i < 200; i++) {
    const tail = `look/${i}x`;
    const u = json('users', tail);
    t.match(u.email, /^[a-z0-9.]+@([a-z]+\.)?example\.(com|org|net)$/, 'emails use RFC 2606 domains');
    t.match(u.username, /^[a-z0-9._]+$/);
    t.match(u.name, /^\S+ \S.*$/);
    t.match(u.joined_at, iso);
    t.ok(Number.isInteger(u.id) && Number.isInteger(u.post_count) && (u.post_count as number) >= 5);
    const p = json('products', tail);
    t.match(p.sku, /^[A-Z]{3}-\d{5}(-[A-Z]{2})?$/);
    t.ok(['USD', 'EUR', 'GBP', 'JPY', 'CAD', 'AUD', 'SEK', 'CHF'].includes(p.currency as string));
    t.ok(typeof p.price === 'number' && (p.price as number) > 0);
    t.match(String(p.price), p.currency === 'JPY' ? /^\d+$/ : /^\d+(\.\d\d?)?$/, 'at most two decimals; yen has none');
    t.equal(typeof p.in_stock, 'boolean');
    const post = json('posts', tail);
    t.match(post.published_at, iso);
    t.ok(Number.isInteger(post.comment_count) && Number.isInteger(post.author_id));
    t.match(json('comments', tail).created_at, iso);
    if (t.passing() === false) break;
  }
});

t.test('every body fits the 20 KB cap; cuts keep JSON valid and HTML well-formed', async (t) => {
  const cuts: Record<string, number> = {};
  for (const type of INFINITE_TYPES) {
    for (let i = 0; i < 300; i++) {
      const tail = `cap/${i}`;
      const j = renderInfinite('json', type, tail);
      t.ok(j.body.length <= BODY_CAP, `json ${type} ${tail}: ${j.body.length} bytes`);
      const doc = JSON.parse(j.body.toString()) as Doc;
      t.same(Object.keys(doc), [...DEFAULT_FIELDS[type], '_note'], 'a cut keeps every field');
      t.equal((doc._note as string).includes('20 KB body cap'), j.truncated, 'the note says when it was cut');
      const h = renderInfinite('html', type, tail);
      const page = h.body.toString();
      t.ok(h.body.length <= BODY_CAP, `html ${type} ${tail}: ${h.body.length} bytes`);
      t.same(wellFormedProblems(page), [], `html ${type} ${tail} well-formed`);
      t.ok(page.includes('<footer>\n<p>Generated content:'), 'the footer survives any cut');
      t.equal(page.includes('class="truncated"'), h.truncated, 'a cut page says so');
      if (j.truncated) cuts[`json ${type}`] = (cuts[`json ${type}`] ?? 0) + 1;
      if (h.truncated) {
        cuts[`html ${type}`] = (cuts[`html ${type}`] ?? 0) + 1;
        t.ok(h.body.length > BODY_CAP - 200, 'a cut page uses the room it has');
        t.equal(anchorHrefs(page).length, 10, 'a cut page keeps its links');
      }
      if (!t.passing()) return;
    }
  }
  // The cap is reachable for every type and format: a few entities carry long text.
  for (const type of INFINITE_TYPES) for (const f of ['json', 'html']) t.ok((cuts[`${f} ${type}`] ?? 0) > 0, `some ${f} ${type} were cut`);
});

t.test('fields: selection never changes a value; unknown names get a string seeded per name', async (t) => {
  for (const type of INFINITE_TYPES) {
    const full = json(type, 'fields/x');
    for (const name of DEFAULT_FIELDS[type]) t.same(json(type, 'fields/x', [name])[name], full[name], `${type}.${name} alone`);
    const picked = json(type, 'fields/x', ['created_at', 'id', 'shoe_size', 'zz_top']);
    t.same(Object.keys(picked), ['created_at', 'id', 'shoe_size', 'zz_top', '_note'], 'in the order asked');
    t.equal(picked.id, full.id);
    t.equal(typeof picked.shoe_size, 'string');
    t.match(picked.shoe_size, /^[a-z]+-[a-z]+-\d+$/);
    t.equal(json(type, 'fields/x', ['shoe_size']).shoe_size, picked.shoe_size, 'same value asked alone');
    t.not(picked.shoe_size, picked.zz_top, 'seeded per field name');
    t.not(json(type, 'fields/y', ['shoe_size']).shoe_size, picked.shoe_size, 'seeded per tail');
  }
  t.same(Object.keys(json('users', 'a', ['id', 'id', '_note', 'name'])), ['id', 'name', '_note'], 'duplicates once, _note last');
  const odd = json('users', 'a', ['__proto__', '123', 'constructor']);
  for (const name of ['__proto__', '123', 'constructor']) t.equal(typeof Object.getOwnPropertyDescriptor(odd, name)?.value, 'string', `${name} is a plain field`);
  const raw = renderInfinite('json', 'users', 'a', { fields: ['__proto__', '123'] }).body.toString();
  t.match(raw, /^\{"__proto__":"[a-z]+-[a-z]+-\d+","123":"[a-z]+-[a-z]+-\d+","_note":/, 'odd names keep their place on the wire');
});

t.test('different tails and types give different content; formats agree on the entity', async (t) => {
  const seen = new Set<string>();
  for (const type of INFINITE_TYPES) {
    for (const tail of ['a', 'b', 'a/b', 'a/b/', 'A', 'a%20b', 'a+b']) {
      const body = renderInfinite('json', type, tail).body.toString();
      t.notOk(seen.has(body), `${type}/${tail} is new`);
      seen.add(body);
    }
  }
  for (const type of INFINITE_TYPES) t.equal(sha(renderInfinite('html', type, 'same').body), sha(renderInfinite('html', type, 'same').body));
  const u = json('users', 'both');
  t.ok(html('users', 'both').includes(`<h1>${u.name as string}</h1>`), 'json and html show the same user');
  const p = json('products', 'both');
  t.ok(html('products', 'both').includes(`<dt>SKU</dt><dd>${p.sku as string}</dd>`), 'and the same product');
});

t.test('relations are held by the tails, both ways, and dates follow them', async (t) => {
  for (const base of ['rel', 'deep/er/path', 'x7k2m9q4']) {
    const u = json('users', base);
    const page = html('users', base);
    const hrefs = anchorHrefs(page);
    const posts = hrefs.filter((h) => h.startsWith('/infinite/html/posts/'));
    const comments = hrefs.filter((h) => h.startsWith('/infinite/html/comments/'));
    t.equal(posts.length, 5);
    t.equal(comments.length, 3);
    for (const href of posts) {
      const tail = href.slice('/infinite/html/posts/'.length);
      const post = json('posts', tail);
      t.equal(post.author_id, u.id, `${tail} is by ${base}`);
      t.ok((post.published_at as string) >= (u.joined_at as string), 'published after the author joined');
      t.ok(anchorHrefs(html('posts', tail)).includes(`/infinite/html/users/${base}`), 'the post links back to its author');
      const n = Number(tail.slice(tail.lastIndexOf('/') + 1));
      t.ok(n >= 1 && n <= (u.post_count as number), 'a post number the user has');
      for (const c of anchorHrefs(html('posts', tail)).filter((h) => h.startsWith('/infinite/html/comments/'))) {
        const ctail = c.slice('/infinite/html/comments/'.length);
        const comment = json('comments', ctail);
        t.equal(comment.post_id, post.id, `${ctail} is on ${tail}`);
        t.ok((comment.created_at as string) >= (post.published_at as string), 'a comment comes after its post');
        t.ok(anchorHrefs(html('comments', ctail)).includes(`/infinite/html/posts/${tail}`), 'and links back to it');
      }
    }
    for (const href of comments) {
      const tail = href.slice('/infinite/html/comments/'.length);
      t.match(tail, /\/c\d+$/);
      t.equal(json('comments', tail).author_id, u.id, `${tail} is written by ${base}`);
    }
  }
});

t.test('link counts per type, and links=N shows the first N of the same list', async (t) => {
  for (let i = 0; i < 40; i++) {
    const tail = `links/${i}`;
    for (const type of INFINITE_TYPES) {
      const all = anchorHrefs(html(type, tail));
      t.equal(all.length, 10, `${type}/${tail} has 10 links`);
      for (const href of all) t.match(href, INFINITE_HREF_RE);
      const kinds = (k: string) => all.filter((h) => h.startsWith(`/infinite/html/${k}/`)).length;
      if (type === 'users') t.same([kinds('posts'), kinds('comments'), kinds('users')], [5, 3, 2]);
      if (type === 'products') t.same([kinds('products'), kinds('users')], [5, 5]);
      if (type === 'posts') {
        t.match(all[0], /^\/infinite\/html\/users\//, 'the author first');
        t.equal(kinds('users'), 1);
        t.ok(kinds('comments') <= 5);
      }
      if (type === 'comments') {
        t.match(all[0], /^\/infinite\/html\/users\//, 'the author first');
        t.match(all[1], /^\/infinite\/html\/posts\//, 'then the parent post');
        t.same([kinds('users'), kinds('posts'), kinds('comments')], [1, 1, 8]);
      }
      if (i < 5) {
        for (let n = 0; n <= 10; n++) t.same(anchorHrefs(html(type, tail, n)), all.slice(0, n), `${type} links=${n}`);
      }
    }
    if (!t.passing()) break;
  }
  const none = html('users', 'links/none', 0);
  t.notOk(none.includes('<nav>'), 'links=0: no navigation at all');
  t.same(wellFormedProblems(none), []);
});

// The review lines are part of the contract (README): a rating's text comes from its own band.
const REVIEW_BANDS: readonly (readonly [readonly number[], readonly string[]])[] = [
  [[4, 5], ['Does what it says', 'Better than expected', 'Would buy again', 'Great gift', 'Sturdier than it looks', 'Exactly as described', 'Worth every penny', 'Arrived quickly and works well']],
  [[3], ['Solid, but pricey', 'Fine for the price', 'Does the job, nothing more', 'Good once I read the manual', 'Smaller than I expected']],
  [[1, 2], ['Returned it', 'Not for me', 'Stopped working after a week', 'Not as pictured', 'Would not buy again']],
];

t.test('product reviews: the text matches the rating (no "5/5: Returned it")', async (t) => {
  const problems: string[] = [];
  const seen = new Map<number, Set<string>>();
  let reviews = 0;
  for (let i = 0; i < 300; i++) {
    const page = html('products', `reviews/${i}`);
    for (const m of page.matchAll(/<\/a> rated it (\d)\/5: “([^”<]+)”<\/li>/g)) {
      reviews++;
      const stars = Number(m[1]);
      const text = m[2] as string;
      const band = REVIEW_BANDS.find(([ratings]) => ratings.includes(stars));
      if (!band) problems.push(`reviews/${i}: rating ${stars}`);
      else if (!band[1].includes(text)) problems.push(`reviews/${i}: ${stars}/5 “${text}”`);
      if (!seen.has(stars)) seen.set(stars, new Set());
      seen.get(stars)?.add(text);
    }
  }
  t.same(problems, [], 'every review text belongs to its rating\'s band');
  t.equal(reviews, 300 * 5, 'five reviews per product page');
  t.same([...seen.keys()].sort(), [1, 2, 3, 4, 5], 'every rating occurs');
  for (const [ratings, texts] of REVIEW_BANDS) {
    const used = new Set(ratings.flatMap((r) => [...(seen.get(r) ?? [])]));
    t.equal(used.size, texts.length, `${ratings.join('/')}: every text of the band occurs`);
  }
});

t.test('tails at the bounds: every link stays within them', async (t) => {
  const long = 'l'.repeat(MAX_TAIL_CHARS);
  const deep = Array.from({ length: MAX_TAIL_SEGMENTS }, (_, i) => `s${i}`).join('/');
  const nearly = 'n'.repeat(MAX_TAIL_CHARS - 8);
  for (const tail of [long, deep, nearly, `${'m'.repeat(MAX_TAIL_CHARS - 3)}/12`]) {
    for (const type of INFINITE_TYPES) {
      const page = html(type, tail);
      t.same(wellFormedProblems(page), [], `${type} well-formed`);
      for (const href of anchorHrefs(page)) {
        const m = INFINITE_HREF_RE.exec(href);
        t.ok(m, href.slice(0, 60));
        const linked = (m as RegExpExecArray)[2] as string;
        t.ok(linked.length <= MAX_TAIL_CHARS && segmentCount(linked) <= MAX_TAIL_SEGMENTS, `${type} link within bounds`);
      }
    }
  }
});
