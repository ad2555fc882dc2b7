// The entities behind /infinite: users, products, posts and comments, each a
// pure function of (type, path tail). One generator per entity, seeded with
// `infinite:<type>:<tail>`, draws the fields in a fixed order, so asking for
// fewer fields never changes the values of the others. "Core" fields (ids,
// names, titles, dates, counts) come first and are cheap; long text comes
// after them and is drawn only for the page's own entity.
//
// Relations live in the tails, so they hold in both directions without any
// lookup: post `X/k` is post number k of user `X`; comment `P/j` is comment
// number j on post `P`; comment `X/cN` is comment number N written by user `X`.
// Anything else gets its related entities from the seed.
import { rngFromSeed, type Rng } from '../../../shared/primitives/seed.js';
import { paragraph, paragraphs, productSentence, sentence, shortBio, title, token } from './text.js';
import {
  BRANDS, CURRENCIES, EMAIL_DOMAINS, FIRST_NAMES, LAST_NAMES, MATERIALS, PRICE_ENDINGS, PRODUCT_ADJECTIVES,
  PRODUCT_NOUNS, VARIANTS,
} from './words.js';

export const INFINITE_TYPES = ['users', 'products', 'posts', 'comments'] as const;
export type InfiniteType = (typeof INFINITE_TYPES)[number];
export const INFINITE_FORMATS = ['json', 'html'] as const;
export type InfiniteFormat = (typeof INFINITE_FORMATS)[number];

/** Default JSON fields per type, in the spec's order (SPEC §2). */
export const DEFAULT_FIELDS: Readonly<Record<InfiniteType, readonly string[]>> = {
  users: ['id', 'username', 'name', 'email', 'bio', 'joined_at', 'post_count'],
  products: ['id', 'sku', 'title', 'description', 'price', 'currency', 'in_stock'],
  posts: ['id', 'title', 'body', 'author_id', 'published_at', 'comment_count'],
  comments: ['id', 'body', 'author_id', 'post_id', 'created_at'],
};

/** Bounds of the path tail, in characters of the request as sent and in segments. */
export const MAX_TAIL_CHARS = 1024;
export const MAX_TAIL_SEGMENTS = 64;

/** Every generated date falls in this window (seconds): the content never depends on today. */
const T_START = Date.UTC(2012, 0, 1) / 1000;
const T_JOIN_END = Date.UTC(2024, 11, 31) / 1000;
const T_END = Date.UTC(2025, 11, 31, 23, 59, 59) / 1000;

const ID_MIN = 1_000_000;
const ID_MAX = 999_999_999;
/** Long texts stop a little past the 20 KB body cap: nothing further is ever served. */
const LONG_BUDGET_CHARS = 22_000;

export function seedOf(type: InfiniteType, tail: string): string {
  return `infinite:${type}:${tail}`;
}

/** ISO 8601 UTC at second precision, e.g. 2019-03-14T08:21:55Z. */
export function isoDate(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
}

// ---- tails --------------------------------------------------------------

const INDEX_RE = /^[1-9][0-9]{0,3}$/;
const BY_RE = /^c[1-9][0-9]{0,3}$/;
/** Longest child segment a link adds: "/" plus "c9999". */
const CHILD_CHARS = 6;

/** The tail without its last segment when that segment matches `re` and something precedes it. */
function parentTail(tail: string, re: RegExp): string | undefined {
  const slash = tail.lastIndexOf('/');
  if (slash <= 0) return undefined;
  return re.test(tail.slice(slash + 1)) ? tail.slice(0, slash) : undefined;
}

/** The index after the last slash (1 for tails that do not end in one). */
function lastIndex(tail: string): number {
  const slash = tail.lastIndexOf('/');
  const last = tail.slice(slash + 1);
  return INDEX_RE.test(last) ? Number(last) : 0;
}

export function segmentCount(tail: string): number {
  let n = 1;
  for (let i = tail.indexOf('/'); i !== -1; i = tail.indexOf('/', i + 1)) n++;
  return n;
}

/** Whether links may add one more segment under this tail and stay within the bounds. */
export function canExtend(tail: string): boolean {
  return tail.length + CHILD_CHARS <= MAX_TAIL_CHARS && segmentCount(tail) < MAX_TAIL_SEGMENTS;
}

// ---- users ----------------------------------------------------------------

export interface UserCore {
  readonly tail: string;
  readonly id: number;
  readonly name: string;
  readonly username: string;
  readonly email: string;
  readonly joinedAt: number;
  readonly postCount: number;
}

function drawUser(tail: string): [UserCore, Rng] {
  const rng = rngFromSeed(seedOf('users', tail));
  const id = rng.intBetween(ID_MIN, ID_MAX);
  const [first, f] = rng.pick(FIRST_NAMES);
  const [last, l] = rng.pick(LAST_NAMES);
  const style = rng.intBetween(0, 3);
  const num = rng.intBetween(2, 99);
  const domain = rng.pick(EMAIL_DOMAINS);
  const joinedAt = rng.intBetween(T_START, T_JOIN_END);
  // Everyone has at least 5 posts, so a user page always links 5 of them.
  const postCount = rng.nextFloat() < 0.85 ? rng.intBetween(5, 60) : rng.intBetween(61, 2400);
  const username = style === 0 ? `${f}.${l}` : style === 1 ? `${f}${l}${num}` : style === 2 ? `${f.charAt(0)}${l}` : `${f}_${num}`;
  const local = style === 0 ? `${f}.${l}` : style === 1 ? `${f}${num}` : style === 2 ? `${f.charAt(0)}.${l}` : `${f}.${l}${num}`;
  return [{ tail, id, name: `${first} ${last}`, username, email: `${local}@${domain}`, joinedAt, postCount }, rng];
}

export function userCore(tail: string): UserCore {
  return drawUser(tail)[0];
}

export interface User extends UserCore {
  /** Paragraphs; one for most users, dozens for the rare long "about me". */
  readonly bio: readonly string[];
}

export function user(tail: string): User {
  const [core, rng] = drawUser(tail);
  const long = rng.nextFloat() < 0.02;
  const lead = shortBio(rng);
  const bio = long ? paragraphs(rng, rng.intBetween(60, 120), LONG_BUDGET_CHARS, lead) : [lead];
  return { ...core, bio };
}

// ---- products ---------------------------------------------------------------

export interface ProductCore {
  readonly tail: string;
  readonly id: number;
  readonly sku: string;
  readonly title: string;
  readonly brand: string;
  /** In the currency's minor units (cents), or whole units for JPY. */
  readonly priceMinor: number;
  readonly currency: string;
  readonly decimals: number;
  readonly inStock: boolean;
}

function drawProduct(tail: string): [ProductCore, Rng] {
  const rng = rngFromSeed(seedOf('products', tail));
  const id = rng.intBetween(ID_MIN, ID_MAX);
  const brand = rng.pick(BRANDS);
  const productTitle = `${rng.pick(PRODUCT_ADJECTIVES)} ${rng.pick(MATERIALS)} ${rng.pick(PRODUCT_NOUNS)}`;
  const prefix = brand.replace(/[^A-Za-z]/g, '').slice(0, 3).toUpperCase();
  const number = rng.intBetween(10_000, 99_999);
  const variant = rng.nextFloat() < 0.5 ? `-${rng.pick(VARIANTS)}` : '';
  const [currency, decimals, lo, hi] = rng.pick(CURRENCIES);
  const whole = rng.intBetween(Math.ceil(lo / 100), Math.floor(hi / 100));
  const ending = rng.pick(PRICE_ENDINGS);
  // 24.99, 25.00 or 19.95 in cents; yen prices end like 1,980 or 2,000.
  const priceMinor = decimals === 2 ? whole * 100 - (ending === 0 ? 0 : 100 - ending) : whole * 100 - (ending === 0 ? 0 : 20);
  const inStock = rng.nextFloat() < 0.8;
  return [{ tail, id, sku: `${prefix}-${number}${variant}`, title: productTitle, brand, priceMinor, currency, decimals, inStock }, rng];
}

export function productCore(tail: string): ProductCore {
  return drawProduct(tail)[0];
}

export interface Product extends ProductCore {
  readonly description: readonly string[];
}

export function product(tail: string): Product {
  const [core, rng] = drawProduct(tail);
  const long = rng.nextFloat() < 0.02;
  const lead = productSentence(rng);
  const description = long
    ? paragraphs(rng, rng.intBetween(60, 120), LONG_BUDGET_CHARS, lead, productSentence)
    : [`${lead} ${productSentence(rng)} ${productSentence(rng)}`];
  return { ...core, description };
}

/** The price as JSON wants it: 24.99 (a number), or 1980 for yen. */
export function priceValue(p: ProductCore): number {
  return p.decimals === 2 ? p.priceMinor / 100 : p.priceMinor;
}

export function priceText(p: ProductCore): string {
  return `${(p.priceMinor / 10 ** p.decimals).toFixed(p.decimals)} ${p.currency}`;
}

// ---- posts ----------------------------------------------------------------

export interface PostCore {
  readonly tail: string;
  readonly id: number;
  readonly title: string;
  readonly commentCount: number;
  readonly authorTail: string;
  /** Where between the author's joining and the window's end the post falls, [0, 1). */
  readonly publishedFraction: number;
}

function drawPost(tail: string): [PostCore, Rng] {
  const rng = rngFromSeed(seedOf('posts', tail));
  const id = rng.intBetween(ID_MIN, ID_MAX);
  const postTitle = title(rng);
  const commentCount = rng.nextFloat() < 0.1 ? 0 : rng.nextFloat() < 0.85 ? rng.intBetween(1, 40) : rng.intBetween(41, 900);
  const publishedFraction = rng.nextFloat();
  const authorTail = parentTail(tail, INDEX_RE) ?? token(rng);
  return [{ tail, id, title: postTitle, commentCount, authorTail, publishedFraction }, rng];
}

export function postCore(tail: string): PostCore {
  return drawPost(tail)[0];
}

export function publishedAt(post: PostCore, author: UserCore): number {
  return author.joinedAt + Math.floor(post.publishedFraction * (T_END - author.joinedAt));
}

export interface Post extends PostCore {
  readonly body: readonly string[];
}

export function post(tail: string): Post {
  const [core, rng] = drawPost(tail);
  const long = rng.nextFloat() < 0.03;
  const lead = sentence(rng);
  const body = long ? paragraphs(rng, rng.intBetween(60, 120), LONG_BUDGET_CHARS, lead) : paragraphs(rng, rng.intBetween(2, 6), LONG_BUDGET_CHARS, lead);
  return { ...core, body };
}

// ---- comments ---------------------------------------------------------------

export interface CommentCore {
  readonly tail: string;
  readonly id: number;
  readonly postTail: string;
  readonly authorTail: string;
  /** Its number on the parent post when the tail says so (`P/j`), else 0. */
  readonly index: number;
  readonly createdFraction: number;
}

function drawComment(tail: string): [CommentCore, Rng] {
  const rng = rngFromSeed(seedOf('comments', tail));
  const id = rng.intBetween(ID_MIN, ID_MAX);
  const createdFraction = rng.nextFloat();
  const onPost = parentTail(tail, INDEX_RE);
  const byUser = onPost === undefined ? parentTail(tail, BY_RE) : undefined;
  // A drawn parent post is one of the first five of its author, which every user has.
  const postTail = onPost ?? `${token(rng)}/${rng.intBetween(1, 5)}`;
  const authorTail = byUser ?? token(rng);
  return [{ tail, id, postTail, authorTail, index: onPost === undefined ? 0 : lastIndex(tail), createdFraction }, rng];
}

export function commentCore(tail: string): CommentCore {
  return drawComment(tail)[0];
}

/** After both the parent post and the author's joining. */
export function createdAt(comment: CommentCore, postPublishedAt: number, author: UserCore): number {
  const base = Math.max(postPublishedAt, author.joinedAt);
  return base + Math.floor(comment.createdFraction * (T_END - base));
}

export interface Comment extends CommentCore {
  readonly body: readonly string[];
}

function drawCommentBody(rng: Rng, whole: boolean): readonly string[] {
  const long = rng.nextFloat() < 0.02;
  const lead = sentence(rng);
  if (!whole) return [lead];
  if (long) return paragraphs(rng, rng.intBetween(60, 120), LONG_BUDGET_CHARS, lead);
  const count = rng.intBetween(1, 4);
  let first = lead;
  for (let i = 1; i < count; i++) first += ` ${sentence(rng)}`;
  return rng.nextFloat() < 0.3 ? [first, paragraph(rng)] : [first];
}

export function comment(tail: string): Comment {
  const [core, rng] = drawComment(tail);
  return { ...core, body: drawCommentBody(rng, true) };
}

/** The first sentence of a comment's body, for link text. */
export function commentLead(tail: string): string {
  const [, rng] = drawComment(tail);
  return drawCommentBody(rng, false)[0] as string;
}

// ---- helpers for links -----------------------------------------------------

/** `count` distinct integers from [min, max] (fewer when the range is smaller), in draw order. */
export function distinctInts(rng: Rng, count: number, min: number, max: number): number[] {
  const n = Math.min(count, max - min + 1);
  const seen = new Set<number>();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    let v = rng.intBetween(min, max);
    // Linear probing keeps this bounded and deterministic.
    while (seen.has(v)) v = v === max ? min : v + 1;
    seen.add(v);
    out.push(v);
  }
  return out;
}
