// JSON documents of /infinite/json/<type>/<tail>: the selected fields in the
// order asked (the spec's order by default), then `_note`. Serialised by hand
// so that any field name keeps its place (`__proto__` or `123` included).
import { rngFromSeed } from '../../../shared/primitives/seed.js';
import { BODY_CAP, cutText, type Rendered } from './cap.js';
import {
  comment, commentCore, createdAt, DEFAULT_FIELDS, isoDate, post, postCore, priceValue, product, productCore,
  publishedAt, seedOf, user, userCore, type InfiniteType,
} from './model.js';
import { genericValue } from './text.js';

type Value = string | number | boolean;

export const NOTE =
  'Generated content: this document was produced by a deterministic generator seeded from its URL path ' +
  '(same URL, same bytes). It describes no real person, product or event.';
export const NOTE_CUT = `${NOTE} It was cut at the 20 KB body cap (X-Not-Infinite-Truncated: true).`;

/** A field's value given the entity; undefined for names the type does not know. */
type Lookup = (name: string) => Value | undefined;

function text(paragraphs: readonly string[]): string {
  return paragraphs.join('\n\n');
}

/** A value computed on first use, then kept: related entities cost a hash each. */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/**
 * Lazily computed known fields: long text and related entities only when asked
 * for. A switch, not an object lookup, so a name like `toString` or
 * `__proto__` can never reach a prototype: it is simply unknown.
 */
function lookupFor(type: InfiniteType, tail: string, names: readonly string[]): Lookup {
  switch (type) {
    case 'users': {
      const full = names.includes('bio') ? user(tail) : undefined;
      const u = full ?? userCore(tail);
      return (name) => {
        switch (name) {
          case 'id': return u.id;
          case 'username': return u.username;
          case 'name': return u.name;
          case 'email': return u.email;
          case 'bio': return text(full?.bio ?? []);
          case 'joined_at': return isoDate(u.joinedAt);
          case 'post_count': return u.postCount;
          default: return undefined;
        }
      };
    }
    case 'products': {
      const full = names.includes('description') ? product(tail) : undefined;
      const p = full ?? productCore(tail);
      return (name) => {
        switch (name) {
          case 'id': return p.id;
          case 'sku': return p.sku;
          case 'title': return `${p.brand} ${p.title}`;
          case 'description': return text(full?.description ?? []);
          case 'price': return priceValue(p);
          case 'currency': return p.currency;
          case 'in_stock': return p.inStock;
          default: return undefined;
        }
      };
    }
    case 'posts': {
      const full = names.includes('body') ? post(tail) : undefined;
      const p = full ?? postCore(tail);
      const author = once(() => userCore(p.authorTail));
      return (name) => {
        switch (name) {
          case 'id': return p.id;
          case 'title': return p.title;
          case 'body': return text(full?.body ?? []);
          case 'author_id': return author().id;
          case 'published_at': return isoDate(publishedAt(p, author()));
          case 'comment_count': return p.commentCount;
          default: return undefined;
        }
      };
    }
    case 'comments': {
      const full = names.includes('body') ? comment(tail) : undefined;
      const c = full ?? commentCore(tail);
      const author = once(() => userCore(c.authorTail));
      const parent = once(() => postCore(c.postTail));
      return (name) => {
        switch (name) {
          case 'id': return c.id;
          case 'body': return text(full?.body ?? []);
          case 'author_id': return author().id;
          case 'post_id': return parent().id;
          case 'created_at': return isoDate(createdAt(c, publishedAt(parent(), userCore(parent().authorTail)), author()));
          default: return undefined;
        }
      };
    }
  }
}

const NOTE_PIECE = `"_note":${JSON.stringify(NOTE)}}\n`;
const NOTE_CUT_PIECE = `"_note":${JSON.stringify(NOTE_CUT)}}\n`;
/** Needs more than the "\n" escape: fall back to JSON.stringify to measure. */
const OTHER_ESCAPES = /["\\\u0000-\u0009\u000b-\u001f\ud800-\udfff]/;

/** Bytes of JSON.stringify(s) without building it: generated text escapes only newlines (a hot path for cuts). */
function jsonBytes(s: string): number {
  if (OTHER_ESCAPES.test(s)) return Buffer.byteLength(JSON.stringify(s));
  let newlines = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) newlines++;
  return Buffer.byteLength(s) + 2 + newlines;
}

/**
 * `fields` undefined means the type's defaults. Names are assumed checked
 * (see params.ts); `_note` is always last and never duplicated.
 */
export function renderJson(type: InfiniteType, tail: string, fields: readonly string[] | undefined): Rendered {
  const names = (fields ?? DEFAULT_FIELDS[type]).filter((n, i, all) => n !== '_note' && all.indexOf(n) === i);
  const lookup = lookupFor(type, tail, names);
  const seed = seedOf(type, tail);
  // `"name":value,` per field, kept apart so a cut re-encodes one field only.
  const values: Value[] = [];
  const pieces: string[] = [];
  let bytes = 1 + Buffer.byteLength(NOTE_PIECE);
  for (const name of names) {
    // Unknown names are seeded per name, so a value never depends on the other fields asked for.
    const value = lookup(name) ?? genericValue(rngFromSeed(`${seed}#field:${name}`));
    const piece = `${JSON.stringify(name)}:${JSON.stringify(value)},`;
    values.push(value);
    pieces.push(piece);
    bytes += Buffer.byteLength(piece);
  }
  if (bytes <= BODY_CAP) return { body: Buffer.from(`{${pieces.join('')}${NOTE_PIECE}`), truncated: false };

  // Too big: keep every field and shorten the longest strings, so the
  // document stays valid JSON with the same shape.
  bytes += Buffer.byteLength(NOTE_CUT_PIECE) - Buffer.byteLength(NOTE_PIECE);
  for (let guard = 0; bytes > BODY_CAP && guard <= names.length; guard++) {
    let longest = -1;
    let longestBytes = 0;
    values.forEach((value, i) => {
      if (typeof value !== 'string') return;
      const b = Buffer.byteLength(pieces[i] as string);
      if (b > longestBytes) {
        longest = i;
        longestBytes = b;
      }
    });
    if (longest === -1) break;
    const name = JSON.stringify(names[longest]);
    const value = values[longest] as string;
    const cut = cutText(value, jsonBytes(value) - (bytes - BODY_CAP), jsonBytes);
    const piece = `${name}:${JSON.stringify(cut)},`;
    bytes += Buffer.byteLength(piece) - longestBytes;
    values[longest] = cut;
    pieces[longest] = piece;
  }
  return { body: Buffer.from(`{${pieces.join('')}${NOTE_CUT_PIECE}`), truncated: true };
}
