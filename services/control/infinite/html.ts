// HTML pages of /infinite/html/<type>/<tail>: one well-formed page per entity
// with outbound links to other /infinite/html pages and a footer saying the
// content is generated. Link targets are drawn from their own generator
// (`<seed>#links`), all ten always, so `links=N` shows the first N of the same
// list and never changes a destination.
import { escapeHtml as escapeAll } from '../../../shared/primitives/html.js';
import { rngFromSeed } from '../../../shared/primitives/seed.js';
import { BODY_CAP, cutText, type Rendered } from './cap.js';
import {
  canExtend, comment, commentLead, createdAt, distinctInts, isoDate, post, postCore, priceText, product,
  productCore, publishedAt, seedOf, user, userCore, type InfiniteType, type UserCore,
} from './model.js';
import { token } from './text.js';
import { MONTHS, REVIEWS_HIGH, REVIEWS_LOW, REVIEWS_MID } from './words.js';

const SPECIAL = /[&<>"']/;
/** shared/catalog/catalog.ts's escaper, skipped for the common text that needs none (a hot path). */
function escapeHtml(text: string): string {
  return SPECIAL.test(text) ? escapeAll(text) : text;
}

/** Most links a page carries, and the default of `links`. */
export const MAX_LINKS = 10;

export const FOOTER =
  'Generated content: this page was produced by a deterministic generator seeded from its URL path ' +
  '(same URL, same bytes). It describes no real person, product or event.';
const CUT_NOTICE = '<p class="truncated">[The text was cut here: the page reached the 20 KB body cap.]</p>\n';
const CUT_NOTICE_BYTES = Buffer.byteLength(CUT_NOTICE);
/** `<p>` + `</p>\n` around each paragraph. */
const P_OVERHEAD = 8;

interface Link {
  readonly type: InfiniteType;
  readonly tail: string;
  /** Computed only for links that are shown. */
  readonly text: () => string;
  /** Plain text after the link, e.g. a rating. */
  readonly after?: string;
}

interface LinkGroup {
  readonly heading: string;
  readonly links: readonly Link[];
}

interface Page {
  readonly type: InfiniteType;
  readonly tail: string;
  readonly title: string;
  readonly h1: string;
  /** Definition-list rows: label, then already-escaped HTML. */
  readonly facts: readonly (readonly [string, string])[];
  readonly textHeading: string;
  readonly paragraphs: readonly string[];
  readonly groups: readonly LinkGroup[];
}

export function href(type: InfiniteType, tail: string): string {
  return `/infinite/html/${type}/${tail}`;
}

function timeHtml(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `<time datetime="${isoDate(seconds)}">${d.getUTCDate()} ${MONTHS[d.getUTCMonth()] as string} ${d.getUTCFullYear()}</time>`;
}

/** Link text from a long sentence: about 90 characters, cut at a word. */
function excerpt(s: string): string {
  return s.length <= 90 ? s : cutText(s, 90, (x) => x.length);
}

function userText(tail: string): string {
  const u = userCore(tail);
  return `${u.name} (@${u.username})`;
}

const userLink = (tail: string, after?: string): Link => ({ type: 'users', tail, text: () => userText(tail), ...(after ? { after } : {}) });
const postLink = (tail: string): Link => ({ type: 'posts', tail, text: () => postCore(tail).title });
const commentLink = (tail: string): Link => ({ type: 'comments', tail, text: () => excerpt(commentLead(tail)) });
const productLink = (tail: string): Link => ({
  type: 'products',
  tail,
  text: () => {
    const p = productCore(tail);
    return `${p.brand} ${p.title}`;
  },
});

function userPage(tail: string): Page {
  const u = user(tail);
  const rng = rngFromSeed(`${seedOf('users', tail)}#links`);
  // A tail at the very edge of the bounds cannot take a child segment: its
  // children then live under a short derived base (SPEC gap, README: Infinite content).
  const base = canExtend(tail) ? tail : token(rng);
  const posts = distinctInts(rng, 5, 1, u.postCount).map((k) => postLink(`${base}/${k}`));
  const comments = distinctInts(rng, 3, 1, 999).map((n) => commentLink(`${base}/c${n}`));
  const follows = [userLink(token(rng)), userLink(token(rng))];
  const first = u.name.split(' ')[0] as string;
  return {
    type: 'users',
    tail,
    title: `${u.name} (@${u.username})`,
    h1: u.name,
    facts: [
      ['Username', escapeHtml(`@${u.username}`)],
      ['Email', escapeHtml(u.email)],
      ['Joined', timeHtml(u.joinedAt)],
      ['Posts', String(u.postCount)],
      ['User ID', String(u.id)],
    ],
    textHeading: 'About',
    paragraphs: u.bio,
    groups: [
      { heading: `Posts by ${first}`, links: posts },
      { heading: `Comments by ${first}`, links: comments },
      { heading: 'Follows', links: follows },
    ],
  };
}

const STARS = [5, 5, 5, 4, 4, 4, 3, 2, 1];

/** The review lines that fit a rating: a 5/5 never reads "Returned it". */
function reviewLines(stars: number): readonly string[] {
  return stars >= 4 ? REVIEWS_HIGH : stars === 3 ? REVIEWS_MID : REVIEWS_LOW;
}

function productPage(tail: string): Page {
  const p = product(tail);
  const rng = rngFromSeed(`${seedOf('products', tail)}#links`);
  const related: Link[] = [];
  for (let i = 0; i < 5; i++) related.push(productLink(token(rng)));
  const reviewers: Link[] = [];
  for (let i = 0; i < 5; i++) {
    const reviewer = token(rng);
    const stars = rng.pick(STARS);
    reviewers.push(userLink(reviewer, ` rated it ${stars}/5: “${rng.pick(reviewLines(stars))}”`));
  }
  return {
    type: 'products',
    tail,
    title: `${p.brand} ${p.title}`,
    h1: `${p.brand} ${p.title}`,
    facts: [
      ['SKU', escapeHtml(p.sku)],
      ['Price', escapeHtml(priceText(p))],
      ['Availability', p.inStock ? 'In stock' : 'Out of stock'],
      ['Product ID', String(p.id)],
    ],
    textHeading: 'Description',
    paragraphs: p.description,
    groups: [
      { heading: 'Related products', links: related },
      { heading: 'Reviewed by', links: reviewers },
    ],
  };
}

function postPage(tail: string): Page {
  const p = post(tail);
  const author = userCore(p.authorTail);
  const rng = rngFromSeed(`${seedOf('posts', tail)}#links`);
  // Up to five of its comments (when the tail can take a child), related posts fill up to ten.
  const comments = canExtend(tail) ? distinctInts(rng, 5, 1, p.commentCount).map((j) => commentLink(`${tail}/${j}`)) : [];
  const related: Link[] = [];
  while (1 + comments.length + related.length < MAX_LINKS) related.push(postLink(`${token(rng)}/${rng.intBetween(1, 5)}`));
  return {
    type: 'posts',
    tail,
    title: p.title,
    h1: p.title,
    facts: [
      ['Author', escapeHtml(`${author.name} (@${author.username})`)],
      ['Published', timeHtml(publishedAt(p, author))],
      ['Comments', String(p.commentCount)],
      ['Post ID', String(p.id)],
    ],
    textHeading: 'Post',
    paragraphs: p.body,
    groups: [
      { heading: 'Author', links: [userLink(p.authorTail)] },
      { heading: 'Comments', links: comments },
      { heading: 'Related posts', links: related },
    ],
  };
}

function commentPage(tail: string): Page {
  const c = comment(tail);
  const author: UserCore = userCore(c.authorTail);
  const parent = postCore(c.postTail);
  const parentAuthor = userCore(parent.authorTail);
  const rng = rngFromSeed(`${seedOf('comments', tail)}#links`);
  // Up to four other comments on the same post; related comments fill up to ten.
  const siblings = distinctInts(rng, 5, 1, parent.commentCount)
    .filter((j) => j !== c.index)
    .slice(0, 4)
    .map((j) => commentLink(`${c.postTail}/${j}`));
  const related: Link[] = [];
  while (2 + siblings.length + related.length < MAX_LINKS) related.push(commentLink(`${token(rng)}/c${rng.intBetween(1, 999)}`));
  return {
    type: 'comments',
    tail,
    title: `Comment by ${author.name} on “${parent.title}”`,
    h1: `Comment by ${author.name}`,
    facts: [
      ['On', escapeHtml(`“${parent.title}”`)],
      ['Posted', timeHtml(createdAt(c, publishedAt(parent, parentAuthor), author))],
      ['Comment ID', String(c.id)],
    ],
    textHeading: 'Comment',
    paragraphs: c.body,
    groups: [
      { heading: 'Author', links: [userLink(c.authorTail)] },
      { heading: 'In reply to', links: [postLink(c.postTail)] },
      { heading: 'More comments on this post', links: siblings },
      { heading: 'Related comments', links: related },
    ],
  };
}

const PAGES: Readonly<Record<InfiniteType, (tail: string) => Page>> = {
  users: userPage,
  products: productPage,
  posts: postPage,
  comments: commentPage,
};

function navHtml(groups: readonly LinkGroup[], limit: number): string {
  if (limit <= 0) return '';
  let left = limit;
  let out = '<nav>\n';
  for (const group of groups) {
    if (left <= 0) break;
    const shown = group.links.slice(0, left);
    if (shown.length === 0) continue;
    left -= shown.length;
    out += `<h2>${escapeHtml(group.heading)}</h2>\n<ul>\n`;
    for (const link of shown) {
      out += `<li><a href="${escapeHtml(href(link.type, link.tail))}">${escapeHtml(link.text())}</a>${link.after ? escapeHtml(link.after) : ''}</li>\n`;
    }
    out += '</ul>\n';
  }
  return `${out}</nav>\n`;
}

const utf8 = (s: string): number => Buffer.byteLength(s);
const escapedBytes = (s: string): number => Buffer.byteLength(escapeHtml(s));

/** The page for (type, tail) with the first `links` links (0 to 10). */
export function renderHtml(type: InfiniteType, tail: string, links: number = MAX_LINKS): Rendered {
  const page = PAGES[type](tail);
  let facts = '<dl>\n';
  for (const [label, value] of page.facts) facts += `<dt>${label}</dt><dd>${value}</dd>\n`;
  facts += '</dl>\n';
  const head =
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="robots" content="noindex, nofollow">\n' +
    `<title>${escapeHtml(page.title)}</title>\n` +
    `<link rel="canonical" href="${escapeHtml(href(type, tail))}">\n` +
    `</head>\n<body>\n<main>\n<article class="${type}">\n<h1>${escapeHtml(page.h1)}</h1>\n${facts}` +
    `<section>\n<h2>${page.textHeading}</h2>\n`;
  const end =
    `</section>\n</article>\n${navHtml(page.groups, links)}</main>\n` +
    `<footer>\n<p>${FOOTER}</p>\n</footer>\n</body>\n</html>\n`;

  // The text in the middle is the only part that grows; it is cut at a word,
  // whole paragraphs first, so every tag still closes.
  const blocks = page.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>\n`);
  let budget = BODY_CAP - utf8(head) - utf8(end);
  let middle = '';
  let truncated = false;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as string;
    const size = utf8(block);
    const roomAfter = i === blocks.length - 1 ? budget : budget - CUT_NOTICE_BYTES;
    if (size <= roomAfter) {
      middle += block;
      budget -= size;
      continue;
    }
    const room = budget - CUT_NOTICE_BYTES - P_OVERHEAD;
    const cut = room > 0 ? cutText(page.paragraphs[i] as string, room, escapedBytes) : '';
    if (cut !== '') middle += `<p>${escapeHtml(cut)}</p>\n`;
    middle += CUT_NOTICE;
    truncated = true;
    break;
  }
  return { body: Buffer.from(head + middle + end), truncated };
}
