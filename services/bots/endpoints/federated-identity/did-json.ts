import { chaosFile, HTML, json, JSON_TYPE, reply } from '../file.js';

/** A handle under example.com: no one can serve its atproto-did, so it never confirms this DID. */
export const OTHER_HANDLE = 'someone-else.example.com';

export default chaosFile({
  id: 'did-json',
  path: '/.well-known/did.json',
  category: 'federated-identity',
  file: 'did.json',
  sitemap: true,
  summary: 'did:web documents a resolver must reject: the id of another DID, no @context, a handle that points elsewhere, invalid JSON, an HTML label',
  lies: {
    'id-mismatch': "id is the control host's DID, not this host's (a did:web resolver must reject the document)",
    'missing-context': 'no @context',
    'aka-other-handle': `alsoKnownAs names at://${OTHER_HANDLE}, not this host: the handle does not confirm the DID`,
    'invalid-json': 'an unquoted key',
    'wrong-content-type': 'a valid document labelled text/html',
  },
  aliases: { 'malformed-json': 'invalid-json' },
  build: (site) => {
    const context = ['https://www.w3.org/ns/did/v1'];
    const valid = { '@context': context, id: site.botsDid, alsoKnownAs: [`at://${site.botsHostname}`] };
    return {
      'id-mismatch': json({ ...valid, id: site.controlDid }),
      'missing-context': json({ id: valid.id, alsoKnownAs: valid.alsoKnownAs }),
      'aka-other-handle': json({ ...valid, alsoKnownAs: [`at://${OTHER_HANDLE}`] }),
      'invalid-json': reply(JSON_TYPE, `{\n  "@context": ["https://www.w3.org/ns/did/v1"],\n  id: "${site.botsDid}"\n}\n`),
      'wrong-content-type': json(valid, HTML),
    };
  },
});
