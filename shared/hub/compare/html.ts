// The compare page: both answers side by side as they arrived, self-contained
// (one inline style allowed by its hash, no script, nothing fetched), with a
// form to ask for another path.
import { createHash } from 'node:crypto';
import { escapeHtml } from '../../primitives/html.js';
import type { ParamErrorBody } from '../../primitives/params.js';
import type { CompareReport, HeadLineReport, SideReport } from './report.js';
import type { WireLimits } from './wire.js';

const STYLE = `
:root{color-scheme:light dark;--fg:#1d1d1f;--bg:#fff;--muted:#6b6b70;--line:#d9d9de;--chaos:#b3261e;--twin:#1b6e3a;--mark:#fff1b8;--odd:#fde0dd;--code:#f4f4f6}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8ea;--bg:#17171a;--muted:#9d9da4;--line:#35353b;--chaos:#ff8a80;--twin:#7fd19b;--mark:#463b00;--odd:#4d1a16;--code:#222227}}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1440px;padding:1rem 1.25rem 3rem;color:var(--fg);background:var(--bg)}
a{color:inherit}
h1{font-size:1.45rem;margin:.2rem 0 .3rem}
h2{font-size:1.1rem;margin:0 0 .4rem}
h3{font-size:.9rem;margin:.9rem 0 .25rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
p{margin:.35rem 0}
form{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center;margin:.7rem 0 .3rem}
label{font-weight:600}
input{flex:1 1 26rem;font:14px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;padding:.4rem .55rem;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg)}
button{font:inherit;padding:.4rem 1rem;border-radius:4px;border:1px solid var(--line);background:var(--code);color:var(--fg);cursor:pointer}
.examples a{margin-right:.6rem;white-space:nowrap}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{font-size:12.5px;line-height:1.4;background:var(--code);padding:.5rem .6rem;border-radius:4px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:.25rem 0}
pre.hex{white-space:pre;word-break:normal}
.box{border:1px solid var(--line);border-radius:6px;padding:.6rem .9rem;margin:.8rem 0}
.error{border:2px solid var(--chaos)}
.diff ul{margin:.2rem 0;padding-left:1.2rem}
.sides{display:grid;grid-template-columns:repeat(auto-fit,minmax(26rem,1fr));gap:1rem;align-items:start}
.side{border:1px solid var(--line);border-radius:6px;padding:.6rem .9rem;min-width:0}
.side.chaos{border-top:4px solid var(--chaos)}
.side.twin{border-top:4px solid var(--twin)}
.meta{color:var(--muted);font-size:.9rem}
.end{font-weight:600}
.end.ok{color:var(--twin)}
.end.bad{color:var(--chaos)}
.x{background:var(--mark)}
.odd{background:var(--odd)}
.eol{color:var(--muted)}
.why{color:var(--chaos)}
.explain{background:var(--mark);border-radius:4px;padding:.4rem .6rem}
.explain ul{margin:0;padding-left:1.1rem}
.notes{padding-left:1.1rem;margin:.2rem 0}
.muted{color:var(--muted)}
`;

/** The page's policy: its one style by hash, nothing else loaded, forms only to itself. */
export const COMPARE_CSP =
  `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
  "img-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Bytes of a body shown in hex on the page (the JSON form has them all, in base64). */
const HEX_SHOWN = 4096;

/** Makes control characters visible (U+2400 pictures); keeps line breaks and tabs. */
function visible(text: string): string {
  return text.replace(/\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, (c) => String.fromCharCode(c === '\x7f' ? 0x2421 : 0x2400 + c.charCodeAt(0)));
}

function hexDump(bytes: Buffer): string {
  const rows: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = bytes.subarray(at, at + 16);
    const hex = [...row].map((b) => b.toString(16).padStart(2, '0'));
    const left = hex.slice(0, 8).join(' ');
    const right = hex.slice(8).join(' ');
    const ascii = [...row].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    rows.push(`${at.toString(16).padStart(8, '0')}  ${left.padEnd(23)}  ${right.padEnd(23)}  |${ascii}|`);
  }
  return rows.join('\n');
}

function compareHref(path: string, format?: 'json'): string {
  return `/compare?path=${encodeURIComponent(path)}${format ? `&format=${format}` : ''}`;
}

function lineHtml(raw: string, lineEnd: 'crlf' | 'lf', classes: string[], notes: readonly string[]): string {
  const odd = notes.length > 0 ? ['odd'] : [];
  const cls = [...classes, ...odd];
  const text = escapeHtml(visible(raw));
  const eol = `<span class="eol">${lineEnd === 'crlf' ? '\\r\\n' : '\\n'}</span>`;
  const why = notes.length ? ` <span class="why">← ${escapeHtml(notes.join('; '))}</span>` : '';
  return `${cls.length ? `<span class="${cls.join(' ')}">${text}</span>` : text}${eol}${why}`;
}

function headHtml(side: SideReport): string {
  if (!side.head_complete) return '';
  const status = lineHtml(side.status_line ?? '', side.status_line_end ?? 'crlf', [], side.status_notes);
  const lines = side.head_lines.map((l: HeadLineReport) => lineHtml(l.raw, l.line_end, l.chaos ? ['x'] : [], l.notes));
  return `<h3>Head</h3>\n<pre class="head">${[status, ...lines].join('\n')}</pre>`;
}

function endClass(side: SideReport): string {
  const clean = (side.end.kind === 'close' || side.end.kind === 'complete-open') && side.framing.complete && side.framing.excess_bytes === 0;
  return clean ? 'end ok' : 'end bad';
}

function sideHtml(side: SideReport, role: 'chaos' | 'twin'): string {
  const title = role === 'chaos' ? 'chaos host' : `twin, on the ${escapeHtml(side.host)} host`;
  const explain = side.explanation.length
    ? `<div class="explain"><h3>What it says it did (X-Chaos-*)</h3><ul>${side.explanation.map((e) => `<li><code>${escapeHtml(e.name)}: ${escapeHtml(visible(e.value))}</code></li>`).join('')}</ul></div>`
    : '<p class="muted">No X-Chaos-* line: the response does not explain itself.</p>';
  const interim = side.interim.length ? `<h3>Interim heads</h3><pre>${side.interim.map((l) => escapeHtml(visible(l))).join('\n')}</pre>` : '';
  const notes = side.notes.length ? `<ul class="notes">${side.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : '';
  const body = Buffer.from(side.body.base64, 'base64');
  const framing = side.framing.kind === 'content-length' ? `; Content-Length ${side.framing.content_length}` : side.framing.kind === 'chunked' ? '; chunked framing shown as received' : '';
  const bodyTitle = side.head_complete ? `Body (${body.length} bytes${framing})` : side.not_http ? `Bytes received (${body.length}): not an HTTP response` : `Bytes received (${body.length}): no complete head`;
  const hex = body.length === 0 ? '' : `<h3>Hex${body.length > HEX_SHOWN ? ` (the first ${HEX_SHOWN} of ${body.length} bytes)` : ''}</h3>\n<pre class="hex">${escapeHtml(hexDump(body.subarray(0, HEX_SHOWN)))}</pre>`;
  return `<section class="side ${role}">
<h2>${title}</h2>
<p><a href="${escapeHtml(side.url)}"><code>${escapeHtml(side.url)}</code></a></p>
<p class="meta">connected to ${escapeHtml(side.connected_to)} · ${side.bytes_received} bytes in ${side.elapsed_ms} ms${side.first_byte_ms === null ? '' : ` (first byte at ${side.first_byte_ms} ms)`}</p>
<p class="${endClass(side)}">${escapeHtml(side.end.detail)}</p>
${notes}
${explain}
${interim}
${headHtml(side)}
<h3>${escapeHtml(bodyTitle)}</h3>
<pre class="body">${body.length ? escapeHtml(visible(side.body.text)) : '<span class="muted">(none)</span>'}</pre>
${hex}
<details><summary>Request sent</summary><pre>${escapeHtml(side.request.replace(/\r\n/g, '\\r\\n\n'))}</pre></details>
</section>`;
}

function reportHtml(report: CompareReport): string {
  const diffs = report.twin === null
    ? `<p>${escapeHtml(report.twin_note ?? '')}</p>`
    : report.differences.length
      ? `<ul>${report.differences.map((d) => `<li>${escapeHtml(d.detail)}</li>`).join('')}</ul>`
      : '<p>None found: the same status, ending, framing, header fields (Date and X-Chaos-* aside) and body.</p>';
  const twin = report.twin === null
    ? `<section class="side twin"><h2>No twin</h2><p>${escapeHtml(report.twin_note ?? '')}</p></section>`
    : sideHtml(report.twin, 'twin');
  return `<section class="box diff"><h2>Differences</h2>${diffs}
<p class="meta">Endpoint <code>${escapeHtml(report.endpoint.path)}</code> (${escapeHtml(report.endpoint.category)}) · the same as JSON: <a href="${escapeHtml(compareHref(report.path, 'json'))}">format=json</a></p></section>
<div class="sides">
${sideHtml(report.chaos, 'chaos')}
${twin}
</div>`;
}

export interface CompareHtmlInput {
  readonly limits: WireLimits;
  readonly examples: readonly string[];
  readonly report?: CompareReport;
  readonly error?: ParamErrorBody;
  /** The path as the client gave it, echoed into the form after an error. */
  readonly given?: string;
}

export function renderCompareHtml(input: CompareHtmlInput): string {
  const { limits, examples, report, error } = input;
  const value = report?.path ?? input.given ?? '';
  const title = report ? `Compare ${report.path}` : 'Compare a chaos answer with its twin';
  const failure = error
    ? `<section class="box error"><h2>Nothing fetched: 400 ${escapeHtml(error.error)}</h2><p>${escapeHtml(error.reason)}</p></section>`
    : '';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — Chaos Endpoint Service</title>
<style>${STYLE}</style></head>
<body>
<h1>Compare a chaos answer with its twin</h1>
<p>The hub fetches the path from the chaos host and its twin from the control host itself, over raw sockets, and shows the bytes as they arrived: at most ${limits.maxBytes / 1024} KiB and ${limits.timeoutMs / 1000} s per side. X-Chaos-* lines, the service explaining what it did, are <span class="x">highlighted</span>. <a href="/">All endpoints</a></p>
<form method="get" action="/compare"><label for="path">Chaos path</label><input id="path" name="path" type="text" value="${escapeHtml(value)}" placeholder="${escapeHtml(examples[0] ?? '/')}" maxlength="2048" required autocomplete="off" spellcheck="false"><button type="submit">Compare</button></form>
<p class="examples">Headline lies: ${examples.map((e) => `<a href="${escapeHtml(compareHref(e))}"><code>${escapeHtml(e)}</code></a>`).join(' ')}</p>
${failure}${report ? reportHtml(report) : ''}
</body>
</html>
`;
}
