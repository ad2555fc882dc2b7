// Parameters of /infinite that the shared constructors in shared/params.ts do
// not cover: path words whose unknown values are a 404 (not a 400), the path
// tail, and the `fields` list.
import type { Param } from '../../../shared/params.js';
import { MAX_TAIL_CHARS, MAX_TAIL_SEGMENTS } from './model.js';

export const MAX_FIELDS = 32;
export const MAX_FIELD_CHARS = 64;
const FIELD_RE = /^[a-z0-9_]{1,64}$/;

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

/** The path tail; its bounds are checked on the raw (still encoded) tail by the handler (414). */
export const tailParam: Param<string> = {
  kind: 'string',
  required: true,
  default: undefined as unknown as string,
  accepted: `path tail of 1 to ${MAX_TAIL_CHARS} characters in at most ${MAX_TAIL_SEGMENTS} segments`,
  in: 'path',
  description: 'any path tail; seeds the content',
  parse: (raw) => ({ ok: true, value: raw, clamped: false }),
};

/** `fields=a,b,c`: 1 to 32 names of 1 to 64 characters from [a-z0-9_]; a wrong list is a 400. */
export const fieldsParam: Param<readonly string[] | undefined> = {
  kind: 'string',
  required: false,
  default: undefined,
  accepted: `comma-separated field names, 1 to ${MAX_FIELDS} of them, each 1 to ${MAX_FIELD_CHARS} characters of a-z, 0-9 and _`,
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
              : `has an invalid field name ${JSON.stringify(shown)}: use 1 to ${MAX_FIELD_CHARS} characters of a-z, 0-9 and _`,
        };
      }
    }
    return { ok: true, value: names, clamped: false };
  },
};
