import { AI_CRAWLERS } from '../../../../shared/content/crawler-files/index.js';
import { chaosFile, HTML, reply, text, TEXT } from '../file.js';

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB and may ignore the rest. */
export const ROBOTS_PARSE_LIMIT = 500 * 1024;

/**
 * `User-agent: *` + `Allow: /`, comment lines up to exactly 500 KiB, then
 * `Disallow: /` just past the limit. URL-free, so it is built once at start-up.
 */
export const OVERSIZED_ROBOTS: Buffer = (() => {
  let head = '# robots.txt larger than the 500 KiB a crawler must parse (mode=oversized)\nUser-agent: *\nAllow: /\n';
  const line = `# padding: ${'.'.repeat(100)}\n`;
  while (head.length + line.length <= ROBOTS_PARSE_LIMIT - 2) head += line;
  // One last comment line ends exactly at the limit, so the cut falls between lines.
  head += `#${'.'.repeat(ROBOTS_PARSE_LIMIT - head.length - 2)}\n`;
  return Buffer.from(`${head}Disallow: /\n`, 'latin1');
})();

export default chaosFile({
  id: 'robots-txt',
  path: '/robots.txt',
  category: 'crawler-files',
  file: 'robots.txt',
  sitemap: true,
  summary: 'robots.txt that crawlers read differently: one path allowed and disallowed, contradicting groups, a BOM, a rule past 500 KiB, a looping sitemap, the wrong media type',
  lies: {
    'allow-disallow-same-path': "Disallow: /private/ then Allow: /private/ in one group (RFC 9309: equal rules, the allow wins; first-match parsers such as Python's robotparser disallow)",
    'contradicting-groups': 'two groups for GPTBot, Disallow: / then Allow: / (RFC 9309 merges them and the allow wins; parsers that stop at the first group disallow)',
    bom: 'a UTF-8 BOM before User-agent: * (a parser that keeps it sees no group and ignores Disallow: /)',
    oversized: 'Allow: / then comments to exactly 500 KiB, then Disallow: / past the RFC 9309 parse limit',
    'sitemap-loop': 'the Sitemap line names a sitemap index whose only entry is itself',
    'wrong-content-type': 'a valid robots.txt labelled text/html',
    'html-fallback': 'an HTML app shell answered with 200 at /robots.txt, as a single-page-app fallback does',
  },
  build: (site) => ({
    'allow-disallow-same-path': text(
      '# mode=allow-disallow-same-path: /private/ is both disallowed and allowed.\nUser-agent: *\nDisallow: /private/\nAllow: /private/\n',
    ),
    'contradicting-groups': text(
      '# mode=contradicting-groups: GPTBot has two groups that say opposite things.\n' +
        'User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n\nUser-agent: GPTBot\nAllow: /\n',
    ),
    bom: reply(TEXT, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('User-agent: *\nDisallow: /\n# mode=bom: a byte order mark precedes the first line.\n')])),
    oversized: reply(TEXT, OVERSIZED_ROBOTS),
    'sitemap-loop': text(`# mode=sitemap-loop\nUser-agent: *\nAllow: /\n\nSitemap: ${site.bots}/sitemap.xml?mode=self-index\n`),
    'wrong-content-type': reply(
      HTML,
      `# mode=wrong-content-type: valid rules, served as text/html.\n${AI_CRAWLERS.slice(0, 3).map((a) => `User-agent: ${a}\n`).join('')}Allow: /\n\nUser-agent: *\nDisallow: /private/\n`,
    ),
    'html-fallback': reply(
      HTML,
      '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>App</title><script src="/app.js" defer></script></head>\n<body><div id="root"></div></body>\n</html>\n',
    ),
  }),
});
