// The catalog pages' stylesheet and script, served by us beside the catalog
// (no CDN, no inline code), so the pages can carry a strict
// Content-Security-Policy. Built once at start-up; each page names them with
// a digest of their bytes, so a browser may keep them for a year.
import { createHash } from 'node:crypto';
import type { PlainResponse } from '../registry/errors.js';
import type { HeaderList } from '../primitives/headers.js';

/** Where the assets live on every host: a prefix no registry path uses (tests/unit/catalog-examples.test.ts checks). */
export const CATALOG_ASSET_PREFIX = '/_catalog/';
export const CATALOG_CSS_PATH = `${CATALOG_ASSET_PREFIX}catalog.css`;
export const CATALOG_JS_PATH = `${CATALOG_ASSET_PREFIX}catalog.js`;

/** What a catalog page may load: our own stylesheet and script, data: images (the icon), nothing else. */
export const CATALOG_CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Lines every catalog page carries (the 404 miss page too). */
export const CATALOG_PAGE_HEADERS: HeaderList = [
  ['Content-Security-Policy', CATALOG_CSP],
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
];

const CSS = `:root{--bg:#fbfbfa;--card:#fff;--ink:#1d2125;--mute:#5d6670;--line:#e3e5e8;--accent:#0b62c4;--code:#f2f4f6;--hold:#8a4b00;--holdbg:#fff1dc;--cut:#9b1c1c;--cutbg:#fde8e8;--post:#5b21b6;--postbg:#efe9fd;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#15181b;--card:#1c2024;--ink:#e4e7ea;--mute:#9aa3ad;--line:#2d3338;--accent:#6cb0ff;--code:#252a2f;--hold:#ffc78a;--holdbg:#3a2a14;--cut:#ff9d9d;--cutbg:#3d1d1d;--post:#c9b5ff;--postbg:#2c2442}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em}
header.top,main,.tools,footer{max-width:80rem;margin:0 auto;padding:0 1rem}
header.top{padding-top:1.25rem}
.brand{margin:0;color:var(--mute);font-size:.85rem;letter-spacing:.04em;text-transform:uppercase}
nav.hosts{float:right;display:flex;gap:.25rem;flex-wrap:wrap}
nav.hosts a{padding:.15rem .55rem;border:1px solid var(--line);border-radius:999px;font-size:.85rem}
nav.hosts a[aria-current]{background:var(--accent);border-color:var(--accent);color:var(--bg)}
h1{margin:.2rem 0;font-size:1.6rem;line-height:1.25}h1 small{font-weight:400;color:var(--mute);font-size:.95rem}
.banner{margin:.3rem 0;font-weight:600}.about{margin:.3rem 0 .8rem;color:var(--mute)}
.about code,.ep code{background:var(--code);padding:.05em .3em;border-radius:4px}
.miss{margin:0;padding:.7rem 1rem;background:var(--cutbg);color:var(--ink);border-bottom:2px solid var(--cut);text-align:center}
.tools{position:sticky;top:0;z-index:1;background:var(--bg);padding-top:.5rem;padding-bottom:.5rem;display:flex;gap:.75rem;align-items:center;border-bottom:1px solid var(--line)}
.tools[hidden]{display:none}
#filter{flex:1;min-width:0;font:inherit;padding:.45rem .7rem;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--ink)}
#filter:focus{outline:2px solid var(--accent);outline-offset:1px}
#shown{color:var(--mute);font-size:.85rem;white-space:nowrap}
section.host>h1{margin-top:1.5rem;padding-top:1rem;border-top:3px solid var(--line)}
nav.toc{display:flex;flex-wrap:wrap;gap:.3rem;margin:.7rem 0}
nav.toc a{padding:.1rem .5rem;background:var(--card);border:1px solid var(--line);border-radius:6px;font-size:.85rem}
nav.toc a span,h2 .n{color:var(--mute);font-weight:400}
nav.toc a[hidden]{display:none}
section.cat{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,30rem),1fr));gap:.6rem;align-items:start}
h2{grid-column:1/-1;margin:1.4rem 0 0;font-size:1.15rem}
section.cat,section.host,.ep{scroll-margin-top:4rem}
.ep{min-width:0;overflow-wrap:break-word;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:.7rem .9rem}
.ep h3{margin:0;font-size:1rem;display:flex;flex-wrap:wrap;gap:.4rem;align-items:baseline}
.ep h3 code{background:none;padding:0;font-size:.95rem}
.ep p{margin:.3rem 0}
.m{font:600 .72rem/1.6 ui-monospace,monospace;padding:0 .4rem;border-radius:4px;background:var(--code);color:var(--mute)}
.m.post{background:var(--postbg);color:var(--post)}
.b{font-size:.75rem;padding:0 .45rem;border-radius:999px;border:1px solid var(--line);color:var(--mute);white-space:nowrap}
.b.hold{background:var(--holdbg);color:var(--hold);border-color:transparent}
.b.cut{background:var(--cutbg);color:var(--cut);border-color:transparent}
.aka{color:var(--mute);font-size:.85rem;font-weight:400}
.try,.modes{font-size:.9rem;color:var(--mute)}
.modes a{display:inline-block;margin:0 .1rem .1rem 0;padding:0 .4rem;border:1px solid var(--line);border-radius:5px;font:.8rem/1.6 ui-monospace,monospace}
.modes span.v{display:inline-block;margin:0 .1rem .1rem 0;padding:0 .4rem;background:var(--code);border-radius:5px;font:.8rem/1.6 ui-monospace,monospace}
.curl{display:flex;align-items:center;gap:.3rem;margin:.4rem 0 .2rem;padding-right:.3rem;background:var(--code);border-radius:6px}
.curl pre{flex:1;min-width:0;margin:0;padding:.4rem .6rem;white-space:pre-wrap;overflow-wrap:anywhere}
.curl code{background:none;padding:0}
button.copy{flex:none;font:.75rem system-ui,sans-serif;padding:.1rem .5rem;border:1px solid var(--line);border-radius:5px;background:var(--card);color:var(--ink);cursor:pointer}
details{font-size:.88rem;color:var(--mute)}summary{cursor:pointer}
details ul{margin:.3rem 0;padding-left:1.2rem}
.random{color:var(--mute);font-size:.9rem}
footer{padding-top:1.5rem;padding-bottom:2rem;color:var(--mute);font-size:.85rem}
[hidden]{display:none!important}
@media (max-width:40rem){nav.hosts{float:none;margin-bottom:.4rem}h1{font-size:1.35rem}.ep{padding:.6rem}}
`;

// Plain ES2020, no build step: the filter box (shown only when this runs, so
// the page without script has no dead control), copy buttons on the curl
// lines, and `?q=` in the address so a filtered view can be shared.
const JS = `(() => {
  'use strict';
  const box = document.getElementById('filter');
  const tools = document.getElementById('tools');
  const shown = document.getElementById('shown');
  const text = (root, selector) => { const el = root.querySelector(selector); return el ? el.textContent : ''; };
  const entries = Array.from(document.querySelectorAll('article.ep'), (el) => {
    const section = el.closest('section.cat');
    const host = el.closest('section.host');
    const words = [section ? section.dataset.category : '', host ? host.id : '', text(el, 'h3'), text(el, '.sum'), text(el, '.modes')];
    return { el, words: words.join(' ').toLowerCase() };
  });
  const sections = Array.from(document.querySelectorAll('section.cat'));
  const hosts = Array.from(document.querySelectorAll('section.host'));
  const chips = Array.from(document.querySelectorAll('nav.toc a'));
  function apply() {
    const terms = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let n = 0;
    for (const e of entries) {
      const hit = terms.every((t) => e.words.includes(t));
      e.el.hidden = !hit;
      if (hit) n++;
    }
    for (const s of sections) {
      const visible = s.querySelectorAll('article.ep:not([hidden])').length;
      s.hidden = visible === 0;
      const count = s.querySelector('h2 .n');
      if (count) count.textContent = terms.length ? visible + ' of ' + count.dataset.total : count.dataset.total;
    }
    for (const h of hosts) h.hidden = !h.querySelector('section.cat:not([hidden])');
    for (const a of chips) {
      const target = document.getElementById(a.getAttribute('href').slice(1));
      const count = a.querySelector('span');
      a.hidden = !target || target.hidden;
      if (target && count) count.textContent = target.querySelectorAll('article.ep:not([hidden])').length;
    }
    shown.textContent = terms.length ? n + ' of ' + entries.length + ' endpoints' : entries.length + ' endpoints';
    const url = new URL(location.href);
    if (terms.length) url.searchParams.set('q', box.value); else url.searchParams.delete('q');
    history.replaceState(null, '', url);
  }
  if (box && tools && shown) {
    tools.hidden = false;
    box.value = new URLSearchParams(location.search).get('q') || '';
    box.addEventListener('input', apply);
    document.addEventListener('keydown', (ev) => {
      const typing = ev.target instanceof HTMLElement && ev.target.closest('input,textarea,select');
      if (ev.key === '/' && !typing) { ev.preventDefault(); box.focus(); }
      if (ev.key === 'Escape' && ev.target === box) { box.value = ''; apply(); }
    });
    apply();
  }
  for (const line of document.querySelectorAll('.curl')) {
    const code = line.querySelector('code');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'Copy';
    const said = (word) => { button.textContent = word; setTimeout(() => { button.textContent = 'Copy'; }, 1500); };
    button.addEventListener('click', () => {
      const select = () => {
        const range = document.createRange();
        range.selectNodeContents(code);
        const selection = getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        said('Selected');
      };
      if (navigator.clipboard) navigator.clipboard.writeText(code.textContent).then(() => said('Copied'), select);
      else select();
    });
    line.append(button);
  }
})();
`;

function asset(type: string, text: string): PlainResponse {
  const body = Buffer.from(text);
  return {
    status: 200,
    headers: [
      ['Content-Type', type],
      ['Content-Length', String(body.length)],
      // Pages name each asset with a digest of its bytes (?v=…): a new build is a new URL.
      ['Cache-Control', 'public, max-age=31536000, immutable'],
      ['X-Content-Type-Options', 'nosniff'],
    ],
    body,
  };
}

/** The assets by path, each a complete 200 response. */
export const CATALOG_ASSETS: ReadonlyMap<string, PlainResponse> = new Map([
  [CATALOG_CSS_PATH, asset('text/css; charset=utf-8', CSS)],
  [CATALOG_JS_PATH, asset('text/javascript; charset=utf-8', JS)],
]);

/** An asset's URL as pages name it: its path and a digest of its bytes. */
export function assetHref(path: string): string {
  const body = (CATALOG_ASSETS.get(path) as PlainResponse).body;
  return `${path}?v=${createHash('sha256').update(body).digest('hex').slice(0, 10)}`;
}
