import { escapeXml, type Day, type Site } from '../../../../shared/content/crawler-files/index.js';
import { chaosFile, DEAD_PREFIX, reply } from '../file.js';

const XML = 'application/xml; charset=utf-8';
const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
export const FUTURE_LASTMOD = '2099-01-01';

function urlset(locs: readonly string[], lastmod: string, ns = NS): string {
  const urls = locs.map((loc) => `  <url>\n    <loc>${escapeXml(loc)}</loc>\n    <lastmod>${lastmod}</lastmod>\n  </url>\n`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${ns}">\n${urls}</urlset>\n`;
}

function malformed(site: Site, day: Day): string {
  // The first <url> is never closed, and its <loc> holds a bare `&`.
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${NS}">\n` +
    `  <url>\n    <loc>${site.bots}/humans.txt?mode=recursive&lang=en</loc>\n    <lastmod>${day.iso}</lastmod>\n` +
    `  <url>\n    <loc>${site.bots}/robots.txt</loc>\n    <lastmod>${day.iso}</lastmod>\n  </url>\n</urlset>\n`
  );
}

export default chaosFile({
  id: 'sitemap-xml',
  path: '/sitemap.xml',
  category: 'crawler-files',
  file: 'sitemap.xml',
  summary: 'Sitemaps that fail: malformed XML, lastmod in 2099, URLs that 404, an index that includes itself, the wrong namespace, URLs of another host',
  lies: {
    'malformed-xml': 'not well-formed: the first <url> is never closed and a <loc> holds a bare &',
    'future-lastmod': `every lastmod is ${FUTURE_LASTMOD}`,
    'dead-urls': 'every <loc> answers 404',
    'self-index': 'a sitemap index whose only <sitemap> is this very URL',
    'wrong-namespace': 'urlset in the namespace https://www.sitemaps.org/schemas/sitemap/0.9 (the protocol says http://)',
    'cross-host-urls': 'every <loc> is on the control host; a sitemap may list only URLs of its own host',
  },
  build: (site, day, paths) => {
    const pages = (base: string): string[] => paths.map((path) => base + path);
    return {
      'malformed-xml': reply(XML, malformed(site, day)),
      'future-lastmod': reply(XML, urlset(pages(site.bots), FUTURE_LASTMOD)),
      'dead-urls': reply(XML, urlset(['/robots.txt', '/sitemap.xml', '/humans.txt'].map((p) => `${site.bots}${DEAD_PREFIX}${p}`), day.iso)),
      'self-index': reply(
        XML,
        `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${NS}">\n  <sitemap>\n    <loc>${escapeXml(`${site.bots}/sitemap.xml?mode=self-index`)}</loc>\n    <lastmod>${day.iso}</lastmod>\n  </sitemap>\n</sitemapindex>\n`,
      ),
      'wrong-namespace': reply(XML, urlset(pages(site.bots), day.iso, 'https://www.sitemaps.org/schemas/sitemap/0.9')),
      'cross-host-urls': reply(XML, urlset(pages(site.control), day.iso)),
    };
  },
});
