import { chaosFile, DEAD_PREFIX, HTML, reply, text } from '../file.js';

export default chaosFile({
  id: 'ai-txt',
  path: '/.well-known/ai.txt',
  category: 'crawler-files',
  file: 'ai.txt',
  sitemap: true,
  summary: 'ai.txt that contradicts itself, allows and disallows one path, points at dead links, or claims to be HTML',
  lies: {
    contradictory: 'says every AI crawler is welcome, then gives GPTBot and ClaudeBot each an Allow: / group and a Disallow: / group',
    'same-path': 'Disallow: /docs/ then Allow: /docs/ in the one User-Agent: * group (RFC 9309 rules: equal, so allow; first-match parsers: disallow)',
    'dead-links': 'the policy and the sitemap it names answer 404',
    'wrong-content-type': 'a valid ai.txt labelled text/html',
  },
  build: (site) => ({
    contradictory: text(
      `# ai.txt of ${site.bots}\n# Every AI crawler is welcome here.\n\n` +
        'User-Agent: GPTBot\nAllow: /\n\nUser-Agent: ClaudeBot\nAllow: /\n\n' +
        'User-Agent: GPTBot\nDisallow: /\n\nUser-Agent: ClaudeBot\nDisallow: /\n',
    ),
    'same-path': text(`# ai.txt of ${site.bots}\nUser-Agent: *\nDisallow: /docs/\nAllow: /docs/\n`),
    'dead-links': text(
      `# ai.txt of ${site.bots}\n# Policy: ${site.bots}${DEAD_PREFIX}/ai-policy.html\nUser-Agent: *\nAllow: /\n\nSitemap: ${site.bots}${DEAD_PREFIX}/ai-sitemap.xml\n`,
    ),
    'wrong-content-type': reply(HTML, `# ai.txt of ${site.bots}\nUser-Agent: *\nAllow: /\n`),
  }),
});
