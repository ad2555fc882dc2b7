// Checks for the /infinite tests: a tiny tag-balance checker (every element
// closes in order, attributes are quoted, no raw `<`, `>` or stray `&` in text)
// and link extraction. Not a full HTML parser: our pages use a strict subset.

const VOID = new Set(['meta', 'link', 'br', 'hr', 'img', 'input']);
const TAG_RE = /<(\/?)([a-z][a-z0-9]*)((?:\s+[a-z-]+="[^"<>]*")*)\s*>/y;
const ENTITY_RE = /&(#[0-9]+|#x[0-9a-fA-F]+|[a-z]+);/y;

/** Problems found; empty when the document is well-formed. */
export function wellFormedProblems(html: string): string[] {
  const problems: string[] = [];
  const doctype = '<!doctype html>\n';
  if (!html.startsWith(doctype)) problems.push('does not start with <!doctype html>');
  if (!html.endsWith('</html>\n')) problems.push('does not end with </html>');
  const stack: string[] = [];
  let i = html.startsWith(doctype) ? doctype.length : 0;
  while (i < html.length && problems.length < 10) {
    const c = html[i];
    if (c === '<') {
      TAG_RE.lastIndex = i;
      const m = TAG_RE.exec(html);
      if (!m) {
        problems.push(`malformed tag at ${i}: ${JSON.stringify(html.slice(i, i + 40))}`);
        break;
      }
      const [whole, slash, name] = m as unknown as [string, string, string];
      if (slash) {
        const open = stack.pop();
        if (open !== name) problems.push(`</${name}> at ${i} closes <${open ?? 'nothing'}>`);
      } else if (!VOID.has(name)) {
        stack.push(name);
      }
      i += whole.length;
    } else if (c === '>') {
      problems.push(`raw > at ${i}`);
      i++;
    } else if (c === '&') {
      ENTITY_RE.lastIndex = i;
      const m = ENTITY_RE.exec(html);
      if (!m) problems.push(`stray & at ${i}`);
      i += m ? m[0].length : 1;
    } else {
      i++;
    }
  }
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(' > ')}`);
  if (stack.length === 0 && !/^<!doctype html>\n<html lang="en">/.test(html)) problems.push('no <html> root');
  return problems;
}

/** Every href of an <a> element, unescaped. */
export function anchorHrefs(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<a href="([^"]*)"/g)) out.push((m[1] as string).replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))));
  return out;
}

/** The page's <link rel="canonical"> href, unescaped. */
export function canonicalHref(html: string): string | undefined {
  const m = /<link rel="canonical" href="([^"]*)">/.exec(html);
  return m ? (m[1] as string).replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))) : undefined;
}

export const INFINITE_HREF_RE = /^\/infinite\/html\/(users|products|posts|comments)\/([^?#\s]+)$/;
