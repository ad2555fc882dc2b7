import { chaosFile, DEAD_PREFIX, HTML, reply, type FileReply } from '../file.js';

const MARKDOWN = 'text/markdown; charset=utf-8';
const md = (body: string): FileReply => reply(MARKDOWN, body);

export default chaosFile({
  id: 'llms-txt',
  path: '/llms.txt',
  category: 'crawler-files',
  file: 'llms.txt',
  sitemap: true,
  summary: 'llms.txt with dead links, two H1s or none, a description its own sections contradict, or an HTML label',
  lies: {
    'dead-links': 'every link answers 404',
    'multiple-h1': 'two H1 headings naming different sites (llms.txt has exactly one)',
    'missing-h1': 'no H1 at all: the file opens with an H2',
    contradictory: 'the description forbids any use by language models; a section then licenses everything for training',
    'wrong-content-type': 'a valid llms.txt labelled text/html',
  },
  build: (site) => {
    const live = `- [humans.txt](${site.bots}/humans.txt): who maintains this\n`;
    return {
      'dead-links': md(
        `# Chaos bots host\n\n> Chaotic crawler and federated files.\n\n## Docs\n\n` +
          `- [Guide](${site.bots}${DEAD_PREFIX}/docs/guide.md): how to use this host\n` +
          `- [API](${site.bots}${DEAD_PREFIX}/api/openapi.json): the API description\n`,
      ),
      'multiple-h1': md(`# Chaos bots host\n\n> Chaotic crawler and federated files.\n\n# Some other site\n\n## Files\n\n${live}`),
      'missing-h1': md(`## Chaos bots host\n\n> Chaotic crawler and federated files.\n\n## Files\n\n${live}`),
      contradictory: md(
        `# Chaos bots host\n\n> No content of this site may be used by language models, for training or for answers.\n\n` +
          `## Training\n\n- [Everything](${site.bots}/): free to use for training and answers\n`,
      ),
      'wrong-content-type': reply(HTML, `# Chaos bots host\n\n> Chaotic crawler and federated files.\n\n## Files\n\n${live}`),
    };
  },
});
