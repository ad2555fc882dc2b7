// The per-host catalog, generated from the registry (never a second hand-kept
// list). Built once at start-up; `/` serves it with 200 and every unknown path
// falls through to it with 404.
import type { Config, HostName, PublicUrls } from './config.js';
import type { Param } from './params.js';
import { allowedMethods, counterpartOf, type AnyEndpoint, type Registry } from './registry.js';

export interface CatalogParam {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
  readonly min?: number;
  readonly max?: number;
  readonly accepted: string | readonly string[];
  /** Other names accepted for some values (alias → value); absent when none. */
  readonly aliases?: Readonly<Record<string, string>>;
}

export interface CatalogEndpoint {
  readonly id: string;
  readonly path: string;
  readonly aliases: readonly string[];
  readonly methods: readonly string[];
  readonly summary: string;
  readonly params: readonly CatalogParam[];
  readonly headers: readonly string[];
  /** The twin's URL; null when the endpoint has none. */
  readonly counterpart: string | null;
  readonly random?: string;
  /** For an endpoint that holds the connection: the longest one response can last, in ms. */
  readonly longest_ms?: number;
}

export interface Catalog {
  readonly host: HostName;
  readonly url: string;
  /** The host's OpenAPI 3.1 document, generated from the same registry. */
  readonly openapi: string;
  readonly banner: string;
  readonly endpoint_count: number;
  readonly category_count: number;
  readonly rate_limit: { readonly requests: number; readonly per_seconds: number };
  readonly categories: readonly { readonly name: string; readonly count: number; readonly endpoints: readonly CatalogEndpoint[] }[];
}

const HOST_URL: Record<HostName, keyof PublicUrls> = { chaos: 'base', control: 'control', bots: 'bots' };

/** A host's configured public URL (no trailing slash). */
export function hostUrl(host: HostName, urls: PublicUrls): string {
  return urls[HOST_URL[host]];
}

/** Where each host serves its OpenAPI document (shared/openapi.ts), beside this catalog. */
export const OPENAPI_PATH = '/openapi.json';

/**
 * Absolute URL of an endpoint's twin on the other host, or null when it has
 * none. A twin at the same template (/status/{code}) is named by the concrete
 * path asked for, when one is given.
 */
export function counterpartUrl(
  host: HostName,
  endpoint: Pick<AnyEndpoint<unknown>, 'path' | 'counterpart'>,
  urls: PublicUrls,
  concretePath?: string,
): string | null {
  const twin = counterpartOf(host, endpoint);
  if (twin === null) return null;
  const path = concretePath !== undefined && twin.path === endpoint.path && endpoint.path.includes('{') ? concretePath : twin.path;
  return urls[HOST_URL[twin.host]] + path;
}

function describeParam(name: string, spec: Param<unknown>): CatalogParam {
  return {
    name,
    in: spec.in,
    type: spec.kind,
    required: spec.required,
    ...(spec.default !== undefined ? { default: spec.default } : {}),
    ...(spec.min !== undefined ? { min: spec.min, max: spec.max } : {}),
    accepted: spec.accepted,
    ...(spec.aliases ? { aliases: spec.aliases } : {}),
  };
}

export function buildCatalog<Ctx>(registry: Registry<Ctx>, config: Config): Catalog {
  const groups = registry.byCategory().filter((g) => g.endpoints.length > 0);
  const endpointCount = registry.endpoints.length;
  const rate = config.rateLimit.general;
  return {
    host: registry.host,
    url: config.urls[HOST_URL[registry.host]],
    openapi: config.urls[HOST_URL[registry.host]] + OPENAPI_PATH,
    banner:
      `${endpointCount} endpoints in ${groups.length} categories on the ${registry.host} host. ` +
      (rate > 0 ? `Rate limit: ${rate} requests per minute per IP.` : 'Rate limit: off.'),
    endpoint_count: endpointCount,
    category_count: groups.length,
    rate_limit: { requests: rate, per_seconds: 60 },
    categories: groups.map((g) => ({
      name: g.category,
      count: g.endpoints.length,
      endpoints: g.endpoints.map((e) => ({
        id: e.id,
        path: e.path,
        aliases: e.aliases ?? [],
        methods: allowedMethods(e),
        summary: e.summary,
        params: Object.entries(e.params).map(([name, spec]) => describeParam(name, spec)),
        headers: e.headers ?? [],
        counterpart: counterpartUrl(registry.host, e, config.urls),
        ...(e.random ? { random: e.random } : {}),
        ...(e.longestMs ? { longest_ms: e.longestMs(config) } : {}),
      })),
    })),
  };
}

/** Escapes, then shows `backticked` words as code, as the summaries are written. */
function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function paramText(p: CatalogParam): string {
  const range = p.min !== undefined ? ` ${p.min}–${p.max}` : '';
  const values = Array.isArray(p.accepted) ? ` (${p.accepted.join(' | ')})` : '';
  const def = p.default !== undefined ? `, default ${String(p.default)}` : p.required ? ', required' : '';
  return `${p.name}: ${p.type}${range}${values}${def}`;
}

function twinNote(counterpart: string | null): string {
  return counterpart === null ? '' : ` <small>(twin: <a href="${escapeHtml(counterpart)}">${escapeHtml(counterpart)}</a>)</small>`;
}

/** What an endpoint that holds or cuts the connection does, at most. */
function longestNote(longestMs: number | undefined): string {
  if (longestMs === undefined) return '';
  if (longestMs === 0) return ' <small class="holds">[closes the connection]</small>';
  return ` <small class="holds">[holds the connection up to ${longestMs >= 1000 ? `${longestMs / 1000} s` : `${longestMs} ms`}]</small>`;
}

/** How an endpoint takes part in /random, in words. */
function randomNote(random: string | undefined): string {
  if (random === 'seeded') return ' <small class="random">[/random pick; covered by the seed]</small>';
  if (random === 'unseeded') return ' <small class="random">[/random pick; NOT covered by the seed]</small>';
  return '';
}

/** The /random pool and the picks its seed does not make reproducible (DESIGN §8). */
function randomSummary(catalog: Catalog): string {
  const picks = catalog.categories.flatMap((g) => g.endpoints).filter((e) => e.random !== undefined);
  if (picks.length === 0) return '';
  const unseeded = picks.filter((e) => e.random === 'unseeded').map((e) => `<code>${escapeHtml(e.path)}</code>`);
  return (
    `<p class="random">/random picks among ${picks.length} endpoints. ` +
    `Seeding does not cover: ${unseeded.length ? unseeded.join(', ') : 'none'} (stateful or time-based: the same seed may answer differently).</p>\n`
  );
}

/**
 * The catalog's category sections. `base` prefixes every link: empty on the
 * host itself, the host's public URL where another page (the hub) shows them.
 */
export function catalogSections(catalog: Catalog, base = ''): string {
  return catalog.categories
    .map((g) => {
      const items = g.endpoints
        .map((e) => {
          const params = e.params.length ? `<ul class="params">${e.params.map((p) => `<li><code>${escapeHtml(paramText(p))}</code></li>`).join('')}</ul>` : '';
          // A template (`/status/{code}`) is not a URL: show it, link only real paths.
          const label = `<code>${escapeHtml(e.methods.join(', '))} ${escapeHtml(e.path)}</code>`;
          const entry = e.path.includes('{') ? label : `<a href="${escapeHtml(base + e.path)}">${label}</a>`;
          return `<li>${entry} — ${inlineCode(e.summary)}${twinNote(e.counterpart)}${randomNote(e.random)}${longestNote(e.longest_ms)}${params}</li>`;
        })
        .join('\n');
      return `<h2>${escapeHtml(g.name)} <small>(${g.count})</small></h2>\n<ul>\n${items}\n</ul>`;
    })
    .join('\n');
}

export function renderCatalogHtml(catalog: Catalog): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Chaos Endpoint Service — ${escapeHtml(catalog.host)} host</title></head>
<body>
<h1>Chaos Endpoint Service — ${escapeHtml(catalog.host)} host</h1>
<p class="banner">${escapeHtml(catalog.banner)}</p>
<p>Ask with <code>Accept: application/json</code> for this catalog as JSON. The same endpoints as an OpenAPI 3.1 document: <a class="openapi" href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</p>
${randomSummary(catalog)}${catalogSections(catalog)}
</body>
</html>
`;
}

/** Both renderings, encoded once. */
export interface CatalogBodies {
  readonly json: Buffer;
  readonly html: Buffer;
}

export function catalogBodies<Ctx>(registry: Registry<Ctx>, config: Config): CatalogBodies {
  const catalog = buildCatalog(registry, config);
  return {
    json: Buffer.from(`${JSON.stringify(catalog, null, 2)}\n`),
    html: Buffer.from(renderCatalogHtml(catalog)),
  };
}

/** The part of a mistyped path compared with ours: long enough for any of our paths, bounded so the distance stays cheap. */
const COMPARED_CHARS = 128;

/** Edit distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length] as number;
}

/**
 * Up to `n` of the host's paths (templates and aliases included) nearest to a
 * path that matched none, nearest first; none when nothing is close (more than
 * half the path would have to change).
 */
export function suggestPaths<Ctx>(registry: Registry<Ctx>, path: string, n = 3): string[] {
  const asked = path.slice(0, COMPARED_CHARS).toLowerCase();
  const scored: { path: string; distance: number }[] = [];
  for (const e of registry.endpoints) {
    for (const candidate of [e.path, ...(e.aliases ?? [])]) {
      const distance = editDistance(asked, candidate.toLowerCase());
      if (distance <= Math.max(2, Math.floor(candidate.length / 2))) scored.push({ path: candidate, distance });
    }
  }
  scored.sort((a, b) => a.distance - b.distance || a.path.localeCompare(b.path));
  return scored.slice(0, n).map((x) => x.path);
}

/** How a missed path is echoed: as sent, cut at 80 characters. */
function shownPath(path: string): string {
  return path.length > 80 ? `${path.slice(0, 80)}…` : path;
}

/**
 * The catalog answered for a path that matched no endpoint: the same document,
 * saying so first ("No endpoint at /x — did you mean /y?"); the JSON form
 * carries `error: "not_found"`, the path and the suggestions.
 */
export function missBody(bodies: CatalogBodies, json: boolean, path: string, suggestions: readonly string[]): Buffer {
  const shown = shownPath(path);
  if (json) {
    const fields = `{\n  "error": "not_found",\n  "path": ${JSON.stringify(shown)},\n  "suggestions": ${JSON.stringify(suggestions)},`;
    return Buffer.concat([Buffer.from(fields), bodies.json.subarray(1)]);
  }
  const links = suggestions.map((p) => (p.includes('{') ? `<code>${escapeHtml(p)}</code>` : `<a href="${escapeHtml(p)}"><code>${escapeHtml(p)}</code></a>`));
  const mean = links.length === 0 ? '' : ` Did you mean ${links.join(', ')}?`;
  const notice = `<p class="miss">No endpoint at <code>${escapeHtml(shown)}</code> on this host.${mean} Every endpoint is listed below.</p>\n`;
  const at = bodies.html.indexOf(BODY_OPEN) + BODY_OPEN.length;
  return Buffer.concat([bodies.html.subarray(0, at), Buffer.from(notice), bodies.html.subarray(at)]);
}

const BODY_OPEN = '<body>\n';

/** JSON when the client asks for it over HTML (a browser sends text/html first). */
export function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const json = accept.indexOf('application/json');
  if (json === -1) return false;
  const html = accept.indexOf('text/html');
  return html === -1 || json < html;
}
