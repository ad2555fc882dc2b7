// Parameters of /infinite that the shared constructors in shared/primitives/params.ts do
// not cover: path words whose unknown values are a 404 (not a 400), the path
// tail, and the `fields` list.
import type { Param } from '../../../shared/primitives/params.js';
import { MAX_TAIL_CHARS, MAX_TAIL_SEGMENTS } from './model.js';

export const MAX_FIELDS = 32;
export const MAX_FIELD_CHARS = 64;
/** Open-ended, as the spec says, but bounded and printable: `firstName`, `na-me`, `a.b`. */
const FIELD_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * A `{name}` path segment listed with its accepted words. It accepts any value:
 * the handler answers an unknown one with 404 (an unknown path), not with a
 * parameter error.
 */
export function pathWord<const V extends readonly [string, ...string[]]>(values: V, description: string): Param<string> {
  return {
    kind: 'enum',
    required: true,
    default: undefined as unknown as string,
    accepted: values,
    in: 'path',
    description,
    parse: (raw) => ({ ok: true, value: raw, clamped: false }),
  };
}

/**
 * The path tail; the handler checks it as sent (still encoded): its bounds
 * (414), then its characters and segments (400, see tailProblem).
 */
export const tailParam: Param<string> = {
  kind: 'string',
  required: true,
  default: undefined as unknown as string,
  accepted:
    `path tail of 1 to ${MAX_TAIL_CHARS} characters in at most ${MAX_TAIL_SEGMENTS} segments, ` +
    "of A-Z a-z 0-9 - . _ ~ ! $ & ' ( ) * + , ; = : @ / and %XX escapes, with no . or .. segment (%2e counts as a dot)",
  in: 'path',
  description: 'any path tail; seeds the content',
  parse: (raw) => ({ ok: true, value: raw, clamped: false }),
};

/**
 * RFC 3986 path characters (pchar and `/`) with valid escapes. Every other
 * byte is one a browser cuts (`#`), rewrites (`\` to `/`), percent-encodes
 * (`"`, `<`, `{`…) or, outside RFC 3986 (`[`, `|`, `^`), may treat either
 * way: a link repeating it would not be what it says.
 */
const TAIL_CHAR_RE = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]|%(?![0-9A-Fa-f]{2})/;
/** `.` and `..` as WHATWG URL sees them: `%2e` in any case is a dot. */
const DOT_SEGMENT_RE = /^(?:\.|%2e){1,2}$/i;

/**
 * Why a tail (as sent) cannot be served, or undefined. Links repeat the tail,
 * so a `..` segment would resolve out of /infinite/ and a `#` would cut the
 * link short: such a tail is a 400, never a page.
 */
export function tailProblem(tail: string): string | undefined {
  const bad = TAIL_CHAR_RE.exec(tail);
  if (bad) {
    const what = bad[0] === '%' ? 'a "%" that starts no %XX escape' : JSON.stringify(bad[0]);
    return `contains ${what}, which a browser would cut, rewrite or encode in a link: percent-encode it (e.g. %23 for #)`;
  }
  for (const segment of tail.split('/')) {
    if (DOT_SEGMENT_RE.test(segment)) {
      return `has the dot segment ${JSON.stringify(segment)}, which a browser resolves away, so links would leave /infinite/`;
    }
  }
  return undefined;
}

/**
 * `fields=a,b,c`: 1 to 32 names of 1 to 64 characters from [A-Za-z0-9_.-]; a
 * wrong list is a 400. Names are data, never property lookups: json.ts matches
 * known ones with a switch and serialises by hand, so `__proto__` or
 * `toString` is just another unknown name with a seeded string.
 */
export const fieldsParam: Param<readonly string[] | undefined> = {
  kind: 'string',
  required: false,
  default: undefined,
  accepted: `comma-separated field names, 1 to ${MAX_FIELDS} of them, each 1 to ${MAX_FIELD_CHARS} characters of A-Z, a-z, 0-9, _, . and -`,
  in: 'query',
  description: 'json only: fields to return, in this order (default: the type\'s fields); unknown names get a seeded string',
  parse(raw) {
    const names = raw.split(',');
    if (names.length > MAX_FIELDS) return { ok: false, reason: `must name at most ${MAX_FIELDS} fields (got ${names.length})` };
    for (const name of names) {
      if (!FIELD_RE.test(name)) {
        const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
        return {
          ok: false,
          reason:
            name === ''
              ? 'must not contain an empty field name'
              : `has an invalid field name ${JSON.stringify(shown)}: use 1 to ${MAX_FIELD_CHARS} characters of A-Z, a-z, 0-9, _, . and -`,
        };
      }
    }
    return { ok: true, value: names, clamped: false };
  },
};
