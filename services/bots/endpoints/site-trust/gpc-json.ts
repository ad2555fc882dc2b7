import { chaosFile, HTML, json, JSON_TYPE, reply } from '../file.js';

export default chaosFile({
  id: 'gpc-json',
  path: '/.well-known/gpc.json',
  category: 'site-trust',
  file: 'gpc.json',
  sitemap: true,
  summary: 'Global Privacy Control resources a checker must reject: gpc as a string, lastUpdate in 2099 or on 30 February, invalid JSON, an HTML label',
  lies: {
    'string-boolean': '"gpc": "true", a string (the GPC spec requires a boolean)',
    'future-last-update': 'lastUpdate 2099-01-01',
    'impossible-date': 'lastUpdate 2024-02-30',
    'invalid-json': 'a trailing comma',
    'wrong-content-type': 'a valid resource labelled text/html',
  },
  aliases: { 'malformed-json': 'invalid-json' },
  build: (_site, day) => ({
    'string-boolean': json({ gpc: 'true', lastUpdate: day.iso }),
    'future-last-update': json({ gpc: true, lastUpdate: '2099-01-01' }),
    'impossible-date': json({ gpc: true, lastUpdate: '2024-02-30' }),
    'invalid-json': reply(JSON_TYPE, `{ "gpc": true, "lastUpdate": "${day.iso}", }\n`),
    'wrong-content-type': json({ gpc: true, lastUpdate: day.iso }, HTML),
  }),
});
