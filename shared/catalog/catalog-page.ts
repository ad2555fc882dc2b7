// The catalog as a page people read: one card per endpoint with a ready
// example, its modes, a curl line and its twin; a filter box that the script
// in catalog-assets.ts brings to life (without script the page reads the
// same, filter aside). Rendered once at start-up from the catalog data, for a
// host's own `/` and, with absolute links, for the hub.
import { assetHref, CATALOG_CSS_PATH, CATALOG_JS_PATH } from './catalog-assets.js';
import { escapeHtml } from '../primitives/html.js';
import {
  buildCatalog, hostUrl, OPENAPI_PATH,
  type Catalog, type CatalogBodies, type CatalogEndpoint, type CatalogExample, type CatalogParam,
} from './catalog.js';
import type { Config, HostName, PublicUrls } from '../config/config.js';
import type { Registry } from '../registry/registry.js';

/** What each host is for, one sentence under its heading. */
const HOST_ROLE: Record<HostName, string> = {
  chaos: 'Endpoints that misbehave on purpose; every chaos response says so in X-Chaos-* headers, and most have a well-formed twin on the control host.',
  control: 'Well-formed twins of the chaos endpoints, at the same paths (or a stated alias), and the infinite-content namespace.',
  bots: 'Crawler and federated-identity files that lie; their honest versions are on the control host, at the same paths.',
};

const HOSTS: readonly HostName[] = ['chaos', 'control', 'bots'];

/** Escapes, then shows `backticked` words as code, as the summaries are written. */
function inlineCode(text: string): string {
  return escapeText(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** Escapes text outside attributes (quotes may stay). */
function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A word for the shell: single-quoted, any single quote closed, escaped and reopened. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The curl line that sends an example as it is. */
export function curlLine(example: CatalogExample): string {
  const parts = ['curl -v'];
  if (example.method !== 'GET') parts.push(`-X ${example.method}`);
  if (example.content_type !== undefined) parts.push(`-H ${shellQuote(`Content-Type: ${example.content_type}`)}`);
  if (example.body !== undefined) parts.push(`--data-raw ${shellQuote(example.body)}`);
  parts.push(shellQuote(example.url));
  return parts.join(' ');
}

/** `target` with the query parameter `name` set to `value` (replacing it when present). */
function withParam(target: string, name: string, value: string): string {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const kept = q === -1 ? [] : target.slice(q + 1).split('&').filter((pair) => pair.split('=')[0] !== name);
  return `${path}?${[...kept, `${encodeURIComponent(name)}=${encodeURIComponent(value)}`].join('&')}`;
}

function duration(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

/** One parameter in words; a mode's values are listed as links already, so not again. */
function paramText(p: CatalogParam, isMode: boolean): string {
  const range = p.min !== undefined ? ` ${p.min}–${p.max}` : '';
  const values = Array.isArray(p.accepted) && !isMode ? ` (${p.accepted.join(' | ')})` : '';
  const def = p.default !== undefined ? `, default ${String(p.default)}` : p.required ? ', required' : '';
  return `${p.name}${p.in === 'path' ? ' (path)' : ''}: ${p.type}${range}${values}${def}`;
}

/** Badges for what the connection goes through, and for /random. */
function badges(e: CatalogEndpoint): string {
  const out: string[] = [];
  if (e.longest_ms !== undefined && e.longest_ms > 0) {
    out.push(`<span class="b hold" title="holds the connection for up to ${duration(e.longest_ms)}">holds ${duration(e.longest_ms)}</span>`);
  }
  if (e.cuts === 'reset') out.push('<span class="b cut" title="ends the connection with a TCP reset (RST)">resets</span>');
  else if (e.cuts === 'close' || e.longest_ms === 0) out.push('<span class="b cut" title="closes the connection (FIN) where a client expects more">closes</span>');
  if (e.random === 'seeded') out.push('<span class="b" title="a /random pick; covered by the seed">in /random</span>');
  if (e.random === 'unseeded') out.push('<span class="b" title="a /random pick; NOT covered by the seed (stateful or time-based)">in /random, unseeded</span>');
  return out.join(' ');
}

/** How one page links: relative on the host's own page, absolute (the host's public URL) on the hub. */
interface Linking {
  readonly catalog: Catalog;
  readonly base: string;
  readonly urls: PublicUrls;
}

/** An example URL as this page links it. */
function href(url: string, { catalog, base }: Linking): string {
  return url.startsWith(`${catalog.url}/`) ? base + url.slice(catalog.url.length) : url;
}

/** Path and query of an absolute URL (what a link shows). */
function targetOf(url: string): string {
  return url.slice(url.indexOf('/', url.indexOf('//') + 2));
}

/** Which of our hosts an absolute URL names. */
function hostOf(url: string, urls: PublicUrls): string {
  for (const host of HOSTS) if (url.startsWith(`${hostUrl(host, urls)}/`)) return host;
  return new URL(url).host;
}

function requestLink(example: CatalogExample, linking: Linking): string {
  const target = targetOf(example.url);
  if (example.method !== 'GET') return `<code>${escapeHtml(`${example.method} ${target}`)}</code>`;
  return `<a href="${escapeHtml(href(example.url, linking))}"><code>${escapeHtml(target)}</code></a>`;
}

/** An entry's anchor, `chaos-ep-truncate`: apart from the categories' (`chaos-status`), which an endpoint id may equal. */
export function entryId(host: HostName, id: string): string {
  return `${host}-ep-${id}`;
}

function entry(e: CatalogEndpoint, linking: Linking): string {
  const { catalog } = linking;
  const shown = e.methods.filter((m) => !(m === 'HEAD' && e.methods.includes('GET')));
  const methods = shown.map((m) => `<span class="m${m === 'GET' || m === 'HEAD' ? '' : ' post'}">${m}</span>`).join('');
  const example = e.example;
  const target = targetOf(example.url);
  // The path is the link when the example is the bare path; a template, or a path that needs a value, is shown and the example linked beside it.
  const bare = target === e.path;
  const path = bare && example.method === 'GET' ? requestLink(example, linking) : `<code>${escapeHtml(e.path)}</code>`;
  const aliases = e.aliases.length > 0 ? ` <span class="aka">also ${e.aliases.map((a) => `<code>${escapeHtml(a)}</code>`).join(', ')}</span>` : '';
  const head = `<h3>${methods} ${path}${aliases} ${badges(e)}</h3>`;
  const tries: string[] = [];
  if (!bare) tries.push(`${example.method === 'GET' ? 'try' : 'send'} ${requestLink(example, linking)}`);
  if (e.counterpart_example) tries.push(`twin on ${escapeHtml(hostOf(e.counterpart_example.url, linking.urls))}: ${requestLink(e.counterpart_example, linking)}`);
  const tryLine = tries.length > 0 ? `<p class="try">${tries.join(' · ')}</p>` : '';
  const mode = e.params.find((p) => p.name === e.mode_param);
  let modes = '';
  if (mode && Array.isArray(mode.accepted)) {
    const values = (mode.accepted as readonly string[]).map((value) =>
      example.method === 'GET'
        ? `<a href="${escapeHtml(href(withParam(example.url, mode.name, value), linking))}">${escapeHtml(value)}</a>`
        : `<span class="v">${escapeHtml(value)}</span>`,
    );
    modes = `<p class="modes">${escapeHtml(mode.name)}: ${values.join(' ')}</p>`;
  }
  const curl = `<div class="curl"><pre><code>${escapeText(curlLine(example))}</code></pre></div>`;
  const facts = [
    ...e.params.map((p) => `<li><code>${escapeText(paramText(p, p === mode))}</code></li>`),
    ...(e.headers.length > 0 ? [`<li>sets ${e.headers.map((h) => `<code>${escapeHtml(h)}</code>`).join(', ')}</li>`] : []),
  ];
  const label = [e.params.length > 0 ? `${e.params.length} parameter${e.params.length === 1 ? '' : 's'}` : '', e.headers.length > 0 ? `${e.headers.length} header${e.headers.length === 1 ? '' : 's'}` : '']
    .filter((x) => x !== '')
    .join(', ');
  const details = facts.length > 0 ? `<details><summary>${label}</summary><ul>${facts.join('')}</ul></details>` : '';
  return `<article class="ep" id="${escapeHtml(entryId(catalog.host, e.id))}">${head}<p class="sum">${inlineCode(e.summary)}</p>${tryLine}${modes}${curl}${details}</article>`;
}

/** The /random pool and the picks its seed does not make reproducible (a stateful or time-based pick). */
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
 * A host's categories: a row of links to them, then one section each. `base`
 * prefixes every link to the host: empty on the host itself, its public URL
 * where another page (the hub) shows them.
 */
export function catalogSections(catalog: Catalog, urls: PublicUrls, base = ''): string {
  const linking: Linking = { catalog, base, urls };
  const id = (category: string): string => escapeHtml(`${catalog.host}-${category}`);
  const toc = `<nav class="toc" aria-label="${escapeHtml(catalog.host)} categories">${catalog.categories.map((g) => `<a href="#${id(g.name)}">${escapeHtml(g.name)} <span>${g.count}</span></a>`).join('')}</nav>\n`;
  const sections = catalog.categories.map(
    (g) =>
      `<section class="cat" id="${id(g.name)}" data-category="${escapeHtml(g.name)}">\n` +
      `<h2>${escapeHtml(g.name)} <span class="n" data-total="${g.count}">${g.count}</span></h2>\n` +
      `${g.endpoints.map((e) => entry(e, linking)).join('\n')}\n</section>`,
  );
  return `${toc}${randomSummary(catalog)}${sections.join('\n')}`;
}

/** Links to every host's catalog and the hub; `current` is marked. */
export function hostNav(urls: PublicUrls, current: HostName | 'hub'): string {
  const links = [...HOSTS.map((h) => [h, hostUrl(h, urls)] as const), ['hub', urls.hub] as const];
  return `<nav class="hosts" aria-label="hosts">${links.map(([name, url]) => `<a href="${escapeHtml(url)}/"${name === current ? ' aria-current="page"' : ''}>${name}</a>`).join('')}</nav>`;
}

const FILTER = '<div class="tools" id="tools" hidden><input type="search" id="filter" placeholder="Filter: path, category, summary, mode  (press /)" aria-label="Filter endpoints" autocomplete="off" spellcheck="false"><span id="shown" aria-live="polite"></span></div>\n';

/** The page around the content: our own stylesheet and script only (the CSP in catalog-assets.ts). */
const CATALOG_FOOTER = 'Generated at start-up from the same registry that routes the requests. Every unknown path answers 404 with this page.';

/** `footer`: the line at the bottom (other hub pages, such as the exam report, say their own). */
export function page(title: string, header: string, content: string, footer = CATALOG_FOOTER): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetHref(CATALOG_CSS_PATH)}">
<script src="${assetHref(CATALOG_JS_PATH)}" defer></script>
</head>
<body>
<header class="top">
${header}
</header>
${FILTER}<main>
${content}
</main>
<footer>${escapeHtml(footer)}</footer>
</body>
</html>
`;
}

/** How to have a page as JSON and where the OpenAPI document is. */
function machineReadable(url: string, openapi: string | undefined): string {
  const json = `As JSON: <code>${escapeHtml(`curl -H 'Accept: application/json' ${url}/`)}</code>`;
  return openapi === undefined ? json : `${json} · OpenAPI 3.1: <a class="openapi" href="${escapeHtml(openapi)}">${OPENAPI_PATH}</a>`;
}

export function renderCatalogHtml(catalog: Catalog, urls: PublicUrls): string {
  const header =
    `<p class="brand">Chaos Endpoint Service</p>${hostNav(urls, catalog.host)}\n` +
    `<h1>${escapeHtml(catalog.host)} host <small>${escapeHtml(catalog.url)}</small></h1>\n` +
    `<p class="banner">${escapeHtml(catalog.banner)}</p>\n` +
    `<p class="about">${escapeHtml(HOST_ROLE[catalog.host])}<br>${machineReadable(catalog.url, OPENAPI_PATH)}</p>`;
  return page(`Chaos Endpoint Service — ${catalog.host} host`, header, catalogSections(catalog, urls));
}

/** A host's page, in both renderings, encoded once. */
export function catalogBodies<Ctx>(registry: Registry<Ctx>, config: Config): CatalogBodies {
  const catalog = buildCatalog(registry, config);
  return {
    json: Buffer.from(`${JSON.stringify(catalog, null, 2)}\n`),
    html: Buffer.from(renderCatalogHtml(catalog, config.urls)),
  };
}

/** The hub's page: every host's sections, each linking to the host that serves it. */
/** `extra`: sections after the hosts' (the TLS modes, built where the catalog may not look: shared/hub/tls-section.ts). */
export function renderHubHtml(catalogs: readonly Catalog[], banner: string, urls: PublicUrls, extra = ''): string {
  const header =
    `<p class="brand">Chaos Endpoint Service</p>${hostNav(urls, 'hub')}\n` +
    `<h1>Every endpoint, on ${catalogs.length} hosts</h1>\n` +
    `<p class="banner">${escapeHtml(banner)}</p>\n` +
    `<p class="about">Every chaos endpoint has a well-formed twin on the control host; bots serves crawler files that lie.<br>${machineReadable(urls.hub, undefined)} · ` +
    `${catalogs.map((c) => `<a href="#${escapeHtml(c.host)}">${escapeHtml(c.host)}</a>`).join(' · ')}</p>\n` +
    `<p class="about">See a chaos answer beside its twin's, byte for byte: <a class="compare" href="/compare">/compare</a>.</p>\n` +
    `<p class="about">Grade your own client (retries, redirects, timeouts, caching, streams, agents): <a class="exam" href="/exam/new?profile=retries">open an exam</a>, or ` +
    `<code>${escapeHtml(`curl -X POST '${urls.hub}/exam?profile=retries'`)}</code>; the steps and the grading are in docs/exam.md.</p>`;
  const sections = catalogs.map(
    (c) =>
      `<section class="host" id="${escapeHtml(c.host)}">\n<h1>${escapeHtml(c.host)} host <small><a href="${escapeHtml(c.url)}/">${escapeHtml(c.url)}</a></small></h1>\n` +
      `<p class="banner">${escapeHtml(c.banner)}</p>\n<p class="about">${escapeHtml(HOST_ROLE[c.host])} OpenAPI 3.1: <a href="${escapeHtml(c.openapi)}">${escapeHtml(c.openapi)}</a></p>\n` +
      `${catalogSections(c, urls, c.url)}\n</section>`,
  );
  return page('Chaos Endpoint Service — hub', header, sections.join('\n') + (extra === '' ? '' : `\n${extra}`));
}
