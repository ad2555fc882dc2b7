import { fakePlcDid } from '../../../../shared/content/federated-identity.js';
import { chaosFile, reply, text, TEXT } from '../file.js';

/** The did:key of the did:key method's own example: a valid DID of a method atproto refuses. */
export const DID_KEY = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';

export default chaosFile({
  id: 'atproto-did',
  path: '/.well-known/atproto-did',
  category: 'federated-identity',
  file: 'atproto-did',
  sitemap: true,
  summary: 'atproto handle files that fail resolution: a did:key, two DIDs, the DID of another host, whitespace around the DID, upper-case DID syntax, an empty file',
  lies: {
    'wrong-method': 'a did:key (atproto handles resolve only to did:plc or did:web)',
    'several-lines': 'two DIDs on two lines, this host\'s did:web and a did:plc',
    'other-host': "the did:web of the control host, not of this one",
    'whitespace-junk': "this host's DID wrapped in a BOM, spaces, CRLFs and a tab",
    'invalid-syntax': 'DID:WEB:<host> in upper case (the scheme and method name must be lower case)',
    empty: 'a 200 with an empty body: no DID at all',
  },
  aliases: { 'invalid-did-format': 'invalid-syntax', 'multiple-lines': 'several-lines' },
  build: (site) => ({
    'wrong-method': text(DID_KEY),
    'several-lines': text(`${site.botsDid}\n${fakePlcDid(`atproto-did:${site.botsHostname}`)}\n`),
    'other-host': text(site.controlDid),
    'whitespace-junk': reply(TEXT, `\uFEFF  ${site.botsDid}  \r\n\r\n\t`),
    'invalid-syntax': text(`DID:WEB:${site.botsDid.slice('did:web:'.length)}`),
    empty: text(''),
  }),
});
