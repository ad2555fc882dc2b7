// Twin content, site-trust family: security.txt (and the page it names),
// ads.txt, humans.txt and gpc.json, well-formed as the control host serves
// them; the bots host builds its chaotic twins from the same pieces.
import { escapeHtml } from '../primitives/html.js';
import { FILE_PATHS, rfc3339, type Day, type Site } from './crawler-files/site.js';

/** security.txt expires this long after the day it is served (RFC 9116: less than a year). */
export const SECURITY_TXT_LIFETIME_DAYS = 180;

export function securityTxt(site: Site, day: Day): string {
  const expires = day.midnightMs + SECURITY_TXT_LIFETIME_DAYS * 86_400_000;
  return (
    `# Security contact of ${site.control}\n` +
    `# The chaos and bots hosts misbehave on purpose (documented in their catalogs); report anything else.\n` +
    `Contact: ${site.control}${FILE_PATHS.securityPage}\n` +
    `Expires: ${rfc3339(expires)}\n` +
    `Preferred-Languages: en\n` +
    `Canonical: ${site.control}${FILE_PATHS.security}\n`
  );
}

/** The page security.txt names as Contact, so the Contact URL resolves. */
export function securityPage(site: Site): string {
  const txt = escapeHtml(`${site.control}${FILE_PATHS.security}`);
  const catalog = escapeHtml(`${site.control}/`);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Security contact</title></head>
<body>
<h1>Security contact</h1>
<p>This page is the Contact named in <a href="${txt}">security.txt</a>.</p>
<p>The chaos and bots hosts misbehave on purpose: every lie they tell is documented in the
<a href="${catalog}">catalog</a> and marked with <code>X-Chaos-*</code> response headers.
A response that misbehaves without such a header is a real defect: report it to the operator of this deployment.</p>
</body>
</html>
`;
}

/** The example.com seller account of the single authorised-seller record. */
export const ADS_SELLER_ID = 'chaos-control-0001';
export function adsTxt(site: Site): string {
  return `# ads.txt of ${site.control}\n# One authorised seller, sold directly.\nexample.com, ${ADS_SELLER_ID}, DIRECT\n`;
}

export function humansDate(day: Day): string {
  return day.iso.replace(/-/g, '/');
}

export function humansTxt(site: Site, day: Day): string {
  return (
    `/* TEAM */\n` +
    `Maintainer: The Chaos Endpoint Service maintainers\n` +
    `Contact: ${site.control}${FILE_PATHS.securityPage}\n` +
    `Site: ${site.control}/\n\n` +
    `/* THANKS */\n` +
    `Name: everyone who reports a lie that is not documented\n\n` +
    `/* SITE */\n` +
    `Last update: ${humansDate(day)}\n` +
    `Language: English\n` +
    `Standards: HTTP/1.1, RFC 9309, RFC 9116, sitemaps.org 0.9, NodeInfo 2.0\n` +
    `Components: Node.js, TypeScript, pure-rand, pino, prom-client\n`
  );
}

export function gpcJson(day: Day): Record<string, unknown> {
  return { gpc: true, lastUpdate: day.iso };
}
