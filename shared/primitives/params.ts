// Parameter rules, written once (DESIGN §4): default when absent; numbers out
// of range are clamped and the applied value reported; wrong type, unknown
// enum value or a missing required value is a 400 with the spec's error shape.

export type ParamKind = 'int' | 'number' | 'string' | 'boolean' | 'enum' | 'list';

export type ParseOutcome<T> =
  | { readonly ok: true; readonly value: T; readonly clamped: boolean }
  | { readonly ok: false; readonly reason: string };

export interface Param<T> {
  readonly kind: ParamKind;
  readonly required: boolean;
  /** Value used when the parameter is absent (undefined when optional without default). */
  readonly default: T;
  /** Human-readable accepted set, for errors, the catalog and OpenAPI. */
  readonly accepted: string | readonly string[];
  readonly min?: number;
  readonly max?: number;
  /** Clamp without reporting (the spec says "silently" for infinite `links`). */
  readonly silentClamp?: boolean;
  /** Values /random draws from instead of the whole range, where a plain draw would be dull or invalid. */
  readonly picks?: readonly number[];
  /** Where the value comes from: the query string, or a `{name}` path segment. */
  readonly in: 'query' | 'path';
  readonly description?: string;
  /** A repeatable query parameter (list()): `parseAll` gets every occurrence, in order; `parse` one. */
  readonly repeatable?: boolean;
  /** Bounds a str() value's length (code points), for OpenAPI. */
  readonly minLength?: number;
  readonly maxLength?: number;
  /** Occurrences a list() accepts, for OpenAPI. */
  readonly maxItems?: number;
  /** An ECMA regular expression a list() item or grammar() value matches (OpenAPI `pattern`); parse() still decides. */
  readonly pattern?: string;
  /** grammar() only: the values it takes bare (an OpenAPI enum), and a pattern of those that carry an argument (`name:ARG`). */
  readonly names?: readonly string[];
  readonly argumentPattern?: string;
  /** oneOf only: other names accepted for a value (alias → value), parsed as that value. */
  readonly aliases?: Readonly<Record<string, string>>;
  parse(raw: string): ParseOutcome<T>;
  parseAll?(raws: readonly string[]): ParseOutcome<T>;
}

export type ParamSpecs = Readonly<Record<string, Param<unknown>>>;
export type ParamValues<P extends ParamSpecs> = { readonly [K in keyof P]: P[K] extends Param<infer T> ? T : never };

interface Common {
  readonly description?: string;
  readonly in?: 'query' | 'path';
}

const INT_RE = /^[+-]?\d+$/;
const NUM_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function clampTo(value: number, min: number, max: number): ParseOutcome<number> {
  if (value < min) return { ok: true, value: min, clamped: true };
  if (value > max) return { ok: true, value: max, clamped: true };
  return { ok: true, value, clamped: false };
}

interface IntOptions extends Common {
  readonly min: number;
  readonly max: number;
  readonly silentClamp?: boolean;
  readonly picks?: readonly number[];
}
export function int(o: IntOptions & { readonly default: number }): Param<number>;
export function int(o: IntOptions & { readonly required: true }): Param<number>;
export function int(o: IntOptions): Param<number | undefined>;
export function int(o: IntOptions & { readonly default?: number; readonly required?: boolean }): Param<number | undefined> {
  const accepted = `integer from ${o.min} to ${o.max}`;
  return {
    kind: 'int',
    required: o.required === true,
    default: o.default,
    accepted,
    min: o.min,
    max: o.max,
    silentClamp: o.silentClamp === true,
    ...(o.picks ? { picks: o.picks } : {}),
    in: o.in ?? 'query',
    description: o.description,
    parse(raw) {
      // Any run of digits is an integer; a huge one is simply out of range.
      if (!INT_RE.test(raw)) return { ok: false, reason: `must be an ${accepted}` };
      return clampTo(Number(raw), o.min, o.max);
    },
  };
}

interface NumberOptions extends Common {
  readonly min: number;
  readonly max: number;
}
export function num(o: NumberOptions & { readonly default: number }): Param<number>;
export function num(o: NumberOptions): Param<number | undefined>;
export function num(o: NumberOptions & { readonly default?: number }): Param<number | undefined> {
  const accepted = `number from ${o.min} to ${o.max}`;
  return {
    kind: 'number',
    required: false,
    default: o.default,
    accepted,
    min: o.min,
    max: o.max,
    in: o.in ?? 'query',
    description: o.description,
    parse(raw) {
      if (!NUM_RE.test(raw)) return { ok: false, reason: `must be a ${accepted}` };
      return clampTo(Number(raw), o.min, o.max);
    },
  };
}

interface StringOptions extends Common {
  readonly minLength?: number;
  readonly maxLength: number;
}
export function str(o: StringOptions & { readonly default: string }): Param<string>;
export function str(o: StringOptions & { readonly required: true }): Param<string>;
export function str(o: StringOptions): Param<string | undefined>;
export function str(o: StringOptions & { readonly default?: string; readonly required?: boolean }): Param<string | undefined> {
  const minLength = o.minLength ?? 0;
  const accepted = `string of ${minLength} to ${o.maxLength} characters`;
  return {
    kind: 'string',
    required: o.required === true,
    default: o.default,
    accepted,
    minLength,
    maxLength: o.maxLength,
    in: o.in ?? 'query',
    description: o.description,
    parse(raw) {
      // Strings are not clamped: cutting an id or seed would silently change its meaning.
      // Lengths count code points; UTF-16 length bounds them (n/2 ≤ points ≤ n),
      // so the exact count is needed only near the bounds.
      const sure = raw.length <= o.maxLength && Math.ceil(raw.length / 2) >= minLength;
      const length = sure ? minLength : [...raw].length;
      if (length < minLength || length > o.maxLength) return { ok: false, reason: `must be a ${accepted}` };
      return { ok: true, value: raw, clamped: false };
    },
  };
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

export function bool(o: Common & { readonly default: boolean }): Param<boolean> {
  return {
    kind: 'boolean',
    required: false,
    default: o.default,
    accepted: 'true or false (also 1/0, yes/no, on/off)',
    in: o.in ?? 'query',
    description: o.description,
    parse(raw) {
      const word = raw.toLowerCase();
      if (TRUE_WORDS.has(word)) return { ok: true, value: true, clamped: false };
      if (FALSE_WORDS.has(word)) return { ok: true, value: false, clamped: false };
      return { ok: false, reason: 'must be true or false' };
    },
  };
}

/**
 * One of `values`. `aliases` are other names for some of them (another
 * service's mode names for the same behaviour): accepted, and parsed as the
 * value they name, so handlers, headers and metrics see one name per behaviour.
 */
export function oneOf<const V extends readonly [string, ...string[]]>(
  values: V,
  o: Common & { readonly default: V[number]; readonly aliases?: Readonly<Record<string, V[number]>> },
): Param<V[number]> {
  const allowed = new Set<string>(values);
  const aliases = o.aliases !== undefined && Object.keys(o.aliases).length > 0 ? o.aliases : undefined;
  const names = aliases ? [...values, ...Object.keys(aliases)] : values;
  return {
    kind: 'enum',
    required: false,
    default: o.default,
    accepted: values,
    in: o.in ?? 'query',
    description: o.description,
    ...(aliases ? { aliases } : {}),
    parse(raw) {
      if (allowed.has(raw)) return { ok: true, value: raw as V[number], clamped: false };
      if (aliases && Object.hasOwn(aliases, raw)) return { ok: true, value: aliases[raw] as V[number], clamped: false };
      return { ok: false, reason: `must be one of ${names.join(', ')}` };
    },
  };
}

/** One item of a list() parameter: its value, or why it is refused. */
export type ItemOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

interface ListOptions<T> extends Common {
  /** Occurrences accepted; more is a 400 (a list is never cut: each item means something). */
  readonly maxItems: number;
  /** What one item looks like, for errors, the catalog and OpenAPI (`Name:Value`). */
  readonly item: string;
  /** A regular expression every valid item matches (OpenAPI `pattern`). */
  readonly pattern?: string;
  parseItem(raw: string): ItemOutcome<T>;
}

/**
 * A repeatable query parameter (`?header=a&header=b`): every occurrence, in
 * order, each parsed by `parseItem`. Absent: undefined. Unlike the other
 * kinds, which take the first occurrence of their name, it sees them all.
 */
export function list<T>(o: ListOptions<T>): Param<readonly T[] | undefined> {
  const accepted = `repeatable, at most ${o.maxItems}, each ${o.item}`;
  const parseAll = (raws: readonly string[]): ParseOutcome<readonly T[]> => {
    if (raws.length > o.maxItems) return { ok: false, reason: `is given ${raws.length} times; at most ${o.maxItems}` };
    const values: T[] = [];
    for (const raw of raws) {
      const item = o.parseItem(raw);
      if (!item.ok) return { ok: false, reason: `${JSON.stringify(raw.length > 64 ? `${raw.slice(0, 64)}…` : raw)}: ${item.reason}` };
      values.push(item.value);
    }
    return { ok: true, value: values, clamped: false };
  };
  return {
    kind: 'list',
    required: false,
    default: undefined,
    accepted,
    maxItems: o.maxItems,
    ...(o.pattern !== undefined ? { pattern: o.pattern } : {}),
    in: 'query',
    description: o.description,
    repeatable: true,
    parse: (raw) => parseAll([raw]),
    parseAll,
  };
}

/**
 * A string parameter with a small grammar of its own (`bytes:N`, `slow-head:MS`):
 * `parse` turns it into a typed value or a reason. Not clamped: a part out of
 * range is refused, since the part names what the request composes.
 */
export function grammar<T>(
  o: Common & {
    readonly accepted: readonly string[];
    readonly default?: T;
    readonly pattern?: string;
    readonly names?: readonly string[];
    readonly argumentPattern?: string;
    parse(raw: string): ItemOutcome<T>;
  },
): Param<T | undefined> {
  return {
    kind: 'string',
    required: false,
    default: o.default,
    accepted: o.accepted,
    ...(o.pattern !== undefined ? { pattern: o.pattern } : {}),
    ...(o.names !== undefined ? { names: o.names } : {}),
    ...(o.argumentPattern !== undefined ? { argumentPattern: o.argumentPattern } : {}),
    in: o.in ?? 'query',
    description: o.description,
    parse(raw) {
      const outcome = o.parse(raw);
      return outcome.ok ? { ok: true, value: outcome.value, clamped: false } : outcome;
    },
  };
}

/** The spec's error body, plus the parameter and what it accepts. */
export interface ParamErrorBody {
  readonly endpoint: string;
  readonly error: 'invalid_parameter' | 'missing_parameter' | 'malformed_query';
  readonly requested: string | null;
  readonly reason: string;
  readonly param: string;
  readonly accepted: string | readonly string[];
}

export type ParseResult<P extends ParamSpecs> =
  | { readonly ok: true; readonly values: ParamValues<P>; readonly clamped: readonly string[] }
  | { readonly ok: false; readonly error: ParamErrorBody };

/**
 * Raw query pairs, first occurrence wins (as go-httpbin and URLSearchParams.get do).
 * Values stay percent-encoded until a declared parameter asks for them.
 */
export function splitQuery(query: string): QueryPairs {
  const pairs = new QueryPairs();
  if (query === '') return pairs;
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? '' : part.slice(eq + 1);
    const name = safeDecode(rawName);
    if (name === undefined) continue;
    if (pairs.has(name)) pairs.repeat(name, rawValue);
    else pairs.set(name, rawValue);
  }
  return pairs;
}

/** The first value of each name (a Map), plus the later occurrences a repeatable (list()) parameter reads. */
export class QueryPairs extends Map<string, string> {
  #later: Map<string, string[]> | undefined;

  /** Keeps a later occurrence of a name already set. */
  repeat(name: string, rawValue: string): void {
    const later = (this.#later ??= new Map());
    const values = later.get(name);
    if (values) values.push(rawValue);
    else later.set(name, [rawValue]);
  }

  /** Every value of `name`, in order (still percent-encoded); empty when absent. */
  getAll(name: string): string[] {
    const first = this.get(name);
    return first === undefined ? [] : [first, ...(this.#later?.get(name) ?? [])];
  }
}

/** A query name or value decoded as a form would (`+` is a space); undefined when its escapes are broken. */
export function safeDecode(raw: string): string | undefined {
  if (raw.indexOf('%') === -1 && raw.indexOf('+') === -1) return raw;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** Echoes at most this much of a bad value back in an error body. */
const ECHO_LIMIT = 256;
function echo(raw: string): string {
  return raw.length > ECHO_LIMIT ? `${raw.slice(0, ECHO_LIMIT)}…` : raw;
}

export function parseParams<P extends ParamSpecs>(
  endpoint: string,
  specs: P,
  query: ReadonlyMap<string, string>,
  pathValues: ReadonlyMap<string, string> | undefined,
): ParseResult<P> {
  const values: Record<string, unknown> = {};
  const clamped: string[] = [];
  for (const name in specs) {
    const spec = specs[name] as Param<unknown>;
    const encoded = spec.in === 'path' ? pathValues?.get(name) : query.get(name);
    if (encoded !== undefined && spec.repeatable && spec.parseAll) {
      const all = query instanceof QueryPairs ? query.getAll(name) : [encoded];
      const raws = all.map(safeDecode);
      const broken = all.find((_, i) => raws[i] === undefined);
      if (broken !== undefined) {
        return {
          ok: false,
          error: { endpoint, error: 'malformed_query', requested: echo(broken), reason: `${name} has malformed percent-encoding`, param: name, accepted: spec.accepted },
        };
      }
      const outcome = spec.parseAll(raws as string[]);
      if (!outcome.ok) {
        return {
          ok: false,
          error: { endpoint, error: 'invalid_parameter', requested: echo((raws as string[]).join('&')), reason: `${name} ${outcome.reason}`, param: name, accepted: spec.accepted },
        };
      }
      values[name] = outcome.value;
      continue;
    }
    if (encoded === undefined) {
      if (spec.required) {
        return {
          ok: false,
          error: { endpoint, error: 'missing_parameter', requested: null, reason: `${name} is required`, param: name, accepted: spec.accepted },
        };
      }
      values[name] = spec.default;
      continue;
    }
    const raw = safeDecode(encoded);
    if (raw === undefined) {
      return {
        ok: false,
        error: { endpoint, error: 'malformed_query', requested: echo(encoded), reason: `${name} has malformed percent-encoding`, param: name, accepted: spec.accepted },
      };
    }
    const outcome = spec.parse(raw);
    if (!outcome.ok) {
      return {
        ok: false,
        error: { endpoint, error: 'invalid_parameter', requested: echo(raw), reason: `${name} ${outcome.reason}`, param: name, accepted: spec.accepted },
      };
    }
    values[name] = outcome.value;
    if (outcome.clamped && !spec.silentClamp) clamped.push(`${name}=${String(outcome.value)}`);
  }
  return { ok: true, values: values as ParamValues<P>, clamped };
}

/** Checks a definition's own parameter table; returns problems, empty when sound. */
export function checkParamSpecs(specs: ParamSpecs): string[] {
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    for (const pick of spec.picks ?? []) {
      const outcome = spec.parse(String(pick));
      if (!outcome.ok || outcome.clamped) problems.push(`${name}: pick ${pick} is outside what it accepts (${String(spec.accepted)})`);
    }
    for (const [alias, value] of Object.entries(spec.aliases ?? {})) {
      if (!(spec.accepted as readonly string[]).includes(value)) problems.push(`${name}: alias ${alias} names ${value}, which it does not accept`);
      if ((spec.accepted as readonly string[]).includes(alias)) problems.push(`${name}: alias ${alias} is also a value`);
    }
    if (spec.default === undefined) continue;
    if (spec.required) problems.push(`${name}: a required parameter has no default`);
    const outcome = spec.parse(String(spec.default));
    if (!outcome.ok || outcome.clamped) problems.push(`${name}: default ${String(spec.default)} is outside what it accepts (${String(spec.accepted)})`);
  }
  return problems;
}
