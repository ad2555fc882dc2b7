import { chaosFile, text } from '../file.js';

/** The person the contradictory mode lists twice. */
export const CONTRADICTED_PERSON = 'Ada Placeholder';

export default chaosFile({
  id: 'humans-txt',
  path: '/humans.txt',
  category: 'site-trust',
  file: 'humans.txt',
  sitemap: true,
  summary: 'humans.txt: contradictory (a maintainer who does not contribute), recursive (every field is /humans.txt), time-paradox (impossible dates)',
  headers: ['X-Chaos-Humans-Mode'],
  lies: {
    contradictory: `${CONTRADICTED_PERSON} is listed as maintainer and as not contributing`,
    recursive: 'every field refers to /humans.txt',
    'time-paradox': 'every date is impossible (30 February, month 13, 31 April, hour 25)',
  },
  extra: (mode) => ({ 'Humans-Mode': mode }),
  build: (site) => ({
    contradictory: text(
      `/* TEAM */\nMaintainer: ${CONTRADICTED_PERSON}\nRole: lead maintainer, reviews every change\nContact: ${site.control}/security\n\n` +
        `/* THANKS */\nNot contributing: ${CONTRADICTED_PERSON} (has never contributed to this site)\n\n` +
        `/* SITE */\nLast update: 2026/01/15\nLanguage: English\n`,
    ),
    recursive: text(
      `/* TEAM */\nMaintainer: see ${site.bots}/humans.txt\nContact: ${site.bots}/humans.txt\n\n` +
        `/* THANKS */\nName: whoever /humans.txt thanks\n\n` +
        `/* SITE */\nLast update: as stated in /humans.txt\nLanguage: the language of /humans.txt\nStandards: /humans.txt\n`,
    ),
    'time-paradox': text(
      `/* TEAM */\nMaintainer: Chaos Endpoint Service maintainers\nJoined: 2024/02/30\n\n` +
        `/* SITE */\nLaunched: 2025/13/01\nLast update: 2023/04/31\nNext review: 2026/06/15 25:00\n`,
    ),
  }),
});
