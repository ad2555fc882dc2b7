// Sentence, title and paragraph generation from the word lists. Templates are
// compiled once at module load into arrays of literals and list references, so
// a sentence costs one draw per slot and a string join.
import type { Rng } from '../../../shared/primitives/seed.js';
import {
  ADJECTIVES, BIO_TEMPLATES, FEATURES, GENERIC_WORDS, INTERESTS, MATERIALS, NOUNS, PEOPLE, PLACES, PLURALS,
  PRODUCT_SENTENCES, ROLES, SENTENCES, TIME_PHRASES, TITLES, UNITS, VERBS, VERBS_PRESENT,
} from './words.js';

/** The number slot `{n}` draws from 2 to 12. */
const NUMBER = Symbol('n');
type Part = string | readonly string[] | typeof NUMBER;

interface Template {
  readonly parts: readonly Part[];
  /** The template starts with a slot: capitalise the drawn word. */
  readonly capitalise: boolean;
}

/** "an index", "a cache": the article chosen once, at load. */
function withArticle(words: readonly string[]): string[] {
  return words.map((w) => `${/^[aeiou]/i.test(w) || w.startsWith('honest') ? 'an' : 'a'} ${w}`);
}

const SLOT_LISTS: Readonly<Record<string, readonly string[]>> = {
  a_adj: withArticle(ADJECTIVES),
  a_noun: withArticle(NOUNS),
  adj: ADJECTIVES,
  feature: FEATURES,
  interest: INTERESTS,
  material: MATERIALS.map((m) => m.toLowerCase()),
  noun: NOUNS,
  people: PEOPLE,
  place: PLACES,
  plural: PLURALS,
  role: ROLES,
  time: TIME_PHRASES,
  units: UNITS,
  verb: VERBS,
  verb_present: VERBS_PRESENT,
};

function compile(template: string): Template {
  const parts: Part[] = [];
  const re = /\{([a-z_]+)\}/g;
  let last = 0;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    if (m.index > last) parts.push(template.slice(last, m.index));
    const name = m[1] as string;
    if (name === 'n') parts.push(NUMBER);
    else {
      const list = SLOT_LISTS[name];
      // A typo in a template must stop start-up, not render "{nuon}".
      if (!list) throw new Error(`infinite text: unknown slot {${name}} in ${JSON.stringify(template)}`);
      parts.push(list);
    }
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return { parts, capitalise: typeof parts[0] !== 'string' };
}

const SENTENCE_TEMPLATES = SENTENCES.map(compile);
const TITLE_TEMPLATES = TITLES.map(compile);
const BIO_COMPILED = BIO_TEMPLATES.map(compile);
const PRODUCT_TEMPLATES = PRODUCT_SENTENCES.map(compile);

function fill(rng: Rng, template: Template): string {
  let out = '';
  for (const part of template.parts) {
    if (typeof part === 'string') out += part;
    else if (part === NUMBER) out += String(rng.intBetween(2, 12));
    else out += rng.pick(part);
  }
  return template.capitalise ? out.charAt(0).toUpperCase() + out.slice(1) : out;
}

export function sentence(rng: Rng): string {
  return fill(rng, rng.pick(SENTENCE_TEMPLATES));
}

export function productSentence(rng: Rng): string {
  return fill(rng, rng.pick(PRODUCT_TEMPLATES));
}

export function title(rng: Rng): string {
  return fill(rng, rng.pick(TITLE_TEMPLATES));
}

export function shortBio(rng: Rng): string {
  return fill(rng, rng.pick(BIO_COMPILED));
}

/** `count` sentences from `next`, joined with spaces. */
function sentences(rng: Rng, count: number, next: (rng: Rng) => string): string {
  let out = next(rng);
  for (let i = 1; i < count; i++) out += ` ${next(rng)}`;
  return out;
}

/** A paragraph of 3 to 6 sentences; `lead`, when given, is its first sentence. */
export function paragraph(rng: Rng, lead?: string, next: (rng: Rng) => string = sentence): string {
  const count = rng.intBetween(3, 6);
  return lead === undefined ? sentences(rng, count, next) : `${lead} ${sentences(rng, count - 1, next)}`;
}

/**
 * Paragraphs until `count` are made or `budgetChars` is reached: long texts
 * stop a little past the body cap, since nothing beyond it is ever served
 * (the output is always a prefix of the same endless text).
 */
export function paragraphs(rng: Rng, count: number, budgetChars: number, lead?: string, next: (rng: Rng) => string = sentence): string[] {
  const out: string[] = [];
  let chars = 0;
  for (let i = 0; i < count && chars < budgetChars; i++) {
    const p = paragraph(rng, i === 0 ? lead : undefined, next);
    out.push(p);
    chars += p.length + 2;
  }
  return out;
}

/** The value of a field name the type does not know: `word-word-NN`. */
export function genericValue(rng: Rng): string {
  return `${rng.pick(GENERIC_WORDS)}-${rng.pick(GENERIC_WORDS)}-${rng.intBetween(10, 999)}`;
}

const TOKEN_SPACE = 36 ** 4;
/** An 8-character [a-z0-9] tail for a generated entity (never shaped like an index segment). */
export function token(rng: Rng): string {
  return rng.intBetween(0, TOKEN_SPACE - 1).toString(36).padStart(4, '0') + rng.intBetween(0, TOKEN_SPACE - 1).toString(36).padStart(4, '0');
}
