import { chaosFile, HTML, reply, text, TEXT } from '../file.js';

export const BOTS_SELLER_ID = 'chaos-bots-0001';

export default chaosFile({
  id: 'ads-txt',
  path: '/ads.txt',
  category: 'site-trust',
  file: 'ads.txt',
  sitemap: true,
  summary: 'ads.txt that authorises nobody or contradicts itself: malformed records, one seller DIRECT and RESELLER, a BOM on the first domain, an HTML label',
  lies: {
    'malformed-lines': 'no valid record: DIRECTLY, space- and semicolon-separated fields, an empty seller account, an empty domain',
    contradictory: `seller ${BOTS_SELLER_ID} is listed both as DIRECT and as RESELLER`,
    bom: "a UTF-8 BOM glued to the first record's domain",
    'wrong-content-type': 'a valid ads.txt labelled text/html',
  },
  build: (site) => {
    const header = `# ads.txt of ${site.bots}\n`;
    return {
      'malformed-lines': text(
        `${header}example.com, ${BOTS_SELLER_ID}, DIRECTLY\nexample.com chaos-bots-0002 DIRECT\nexample.com; chaos-bots-0003; DIRECT\nexample.com, , RESELLER\n, chaos-bots-0005, DIRECT\n`,
      ),
      contradictory: text(`${header}example.com, ${BOTS_SELLER_ID}, DIRECT\nexample.com, ${BOTS_SELLER_ID}, RESELLER\n`),
      bom: reply(TEXT, `\uFEFFexample.com, ${BOTS_SELLER_ID}, DIRECT\n`),
      'wrong-content-type': reply(HTML, `${header}example.com, ${BOTS_SELLER_ID}, DIRECT\n`),
    };
  },
});
