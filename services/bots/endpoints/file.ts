// One chaotic file = one definition: a table of modes (mode → the one-line lie
// it tells, the first being the default) and a builder of every mode's reply
// from the public URLs and the day. Replies are built and encoded once per
// config and day; a request only picks one. Every reply names the file, the
// mode, the lie and the control twin in X-Chaos-* headers.
import { counterpartUrl } from '../../../shared/catalog/catalog.js';
import { addChaosHeaders, type HeaderList, type HeaderValue } from '../../../shared/primitives/headers.js';
import { defineBotsEndpoint, type HttpContext, type HttpEndpoint } from '../../../shared/http/http-service.js';
import { oneOf, safeDecode, type ParamSpecs } from '../../../shared/primitives/params.js';
import type { Category, Registry } from '../../../shared/registry/registry.js';
import type { Config } from '../../../shared/config/config.js';
import { sitemapPaths, perConfigDaily, prettyJson, type Day, type Site } from '../../../shared/content/crawler-files/index.js';

export interface FileReply {
  readonly status: number;
  readonly type: string;
  readonly body: Buffer;
  /** Further header lines (Location on redirects). */
  readonly more?: HeaderList;
}

export const TEXT = 'text/plain; charset=utf-8';
export const HTML = 'text/html; charset=utf-8';
export const JSON_TYPE = 'application/json';

export function reply(type: string, body: string | Buffer, status = 200, more?: HeaderList): FileReply {
  return { status, type, body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body, ...(more ? { more } : {}) };
}
export const text = (body: string): FileReply => reply(TEXT, body);
export const json = (value: unknown, type: string = JSON_TYPE): FileReply => reply(type, prettyJson(value));
export function redirect(status: 301 | 302, location: string): FileReply {
  return reply(TEXT, `Redirecting to ${location}\n`, status, [['Location', location]]);
}

/** The headers every chaotic file adds to X-Chaos-Category and X-Chaos-Endpoint. */
export const FILE_HEADERS = ['X-Chaos-File', 'X-Chaos-Mode', 'X-Chaos-Lie', 'X-Chaos-Counterpart'] as const;

const NO_PARAMS: ReadonlySet<string> = new Set();

/**
 * The query parameters a control twin reads, for the counterpart URL to keep.
 * `mode` is the bots host's own and never crosses over.
 */
export function twinQueryParams(twinParams: ParamSpecs): ReadonlySet<string> {
  return new Set(Object.entries(twinParams).filter(([name, p]) => p.in === 'query' && name !== 'mode').map(([name]) => name));
}

/**
 * `?` and the pairs of `query` (raw, without `?`) whose names are in `keep`,
 * as sent and in order, the first of each name (names decoded as splitQuery
 * decodes them, so the twin reads the same values); empty when none is left.
 */
export function keptQuery(query: string, keep: ReadonlySet<string>): string {
  if (query === '' || keep.size === 0) return '';
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const name = safeDecode(eq === -1 ? part : part.slice(0, eq));
    if (name === undefined || !keep.has(name) || seen.has(name)) continue;
    seen.add(name);
    parts.push(part);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/**
 * Sends a file with its X-Chaos-* lines. The counterpart keeps the query
 * parameters in `twinParams` (see twinQueryParams), so following it asks the
 * control twin the same question.
 */
export function sendFile(
  ctx: HttpContext,
  file: string,
  mode: string,
  lie: string,
  r: FileReply,
  extra?: Readonly<Record<string, HeaderValue>>,
  twinParams: ReadonlySet<string> = NO_PARAMS,
): void {
  const twin = counterpartUrl('bots', ctx.endpoint, ctx.config.urls);
  // The lines as a list straight away (no record to spread and turn into lines per request); `extra` adds
  // further names (the definition's extra never repeats these four).
  const lines: HeaderList = [
    ['X-Chaos-File', file],
    ['X-Chaos-Mode', mode],
    ['X-Chaos-Lie', lie],
  ];
  if (twin !== null) lines.push(['X-Chaos-Counterpart', twin + keptQuery(ctx.query, twinParams)]);
  if (extra) addChaosHeaders(lines, extra);
  if (r.more) for (const line of r.more) lines.push(line);
  ctx.send(r.status, r.type, r.body, undefined, lines);
}

type Lies = Readonly<Record<string, string>>;

export interface ChaosFileDef<L extends Lies> {
  readonly id: string;
  readonly path: string;
  readonly category: Category<'bots'>;
  /** The file's name as X-Chaos-File reports it. */
  readonly file: string;
  readonly summary: string;
  /** mode → the lie it tells, in catalog order; the first is the default. */
  readonly lies: L;
  /** Other services' names for some modes (alias → mode), accepted as those modes. */
  readonly aliases?: Readonly<Record<string, keyof L & string>>;
  /** The control twin's path, when it differs from `path`. */
  readonly counterpart?: string;
  readonly headers?: readonly string[];
  /** Listed in this host's sitemap.xml. */
  readonly sitemap?: boolean;
  /** Every mode's reply; `pages` are the paths this host's sitemap lists (sitemapPaths of its registry). */
  readonly build: (site: Site, day: Day, pages: readonly string[]) => { readonly [K in keyof L]: FileReply };
  /** More X-Chaos-* headers for a mode (e.g. X-Chaos-Humans-Mode), never one of FILE_HEADERS. */
  readonly extra?: (mode: keyof L & string) => Readonly<Record<string, HeaderValue>>;
}

/** Header values must be visible ASCII: node refuses anything else at write time, as a 500. */
const HEADER_SAFE = /^[\x20-\x7e]+$/;

/** The mode list of a lie table; a table that could not go in a header stops start-up. */
export function modeNames<L extends Lies>(lies: L): [keyof L & string, ...(keyof L & string)[]] {
  const names = Object.keys(lies) as (keyof L & string)[];
  if (names.length === 0) throw new Error('a chaotic file needs at least one mode');
  for (const name of names) {
    if (!HEADER_SAFE.test(name) || !HEADER_SAFE.test(lies[name] as string)) throw new Error(`mode ${name}: name and lie must be visible ASCII`);
  }
  return names as [keyof L & string, ...(keyof L & string)[]];
}

export function chaosFile<const L extends Lies>(def: ChaosFileDef<L>): HttpEndpoint {
  const modes = modeNames(def.lies);
  // Built per registry (the sitemap's pages come from it), then per config and day.
  const perRegistry = new WeakMap<Registry<HttpContext>, (config: Config) => { readonly [K in keyof L]: FileReply }>();
  const replies = (registry: Registry<HttpContext>): ((config: Config) => { readonly [K in keyof L]: FileReply }) => {
    let built = perRegistry.get(registry);
    if (built === undefined) {
      const pages = sitemapPaths(registry);
      built = perConfigDaily((site, day) => def.build(site, day, pages));
      perRegistry.set(registry, built);
    }
    return built;
  };
  return defineBotsEndpoint({
    id: def.id,
    path: def.path,
    category: def.category,
    summary: def.summary,
    params: { mode: oneOf(modes, { default: modes[0], description: 'which documented lie to tell', ...(def.aliases ? { aliases: def.aliases } : {}) }) },
    headers: [...FILE_HEADERS, ...(def.headers ?? [])],
    ...(def.counterpart ? { counterpart: def.counterpart } : {}),
    ...(def.sitemap ? { sitemap: true } : {}),
    handle(ctx, { mode }) {
      sendFile(ctx, def.file, mode, def.lies[mode] as string, replies(ctx.registry)(ctx.config)[mode], def.extra?.(mode));
    },
  });
}

/** A path no host serves: the catalog fall-through answers 404. */
export const DEAD_PREFIX = '/gone';
