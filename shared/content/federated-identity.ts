// Twin content, federated-identity family: atproto-did, did.json, nodeinfo and
// webfinger, well-formed as the control host serves them; the bots host builds
// its chaotic twins from the same pieces.
import { str } from '../primitives/params.js';
import { rngFromSeed } from '../primitives/seed.js';
import { FILE_PATHS, HOST_IDENTITY, type FileHost, type Site } from './crawler-files/site.js';

/** What nodeinfo reports; the interface is at version 1.0.0 (SPEC §9). */
export const SOFTWARE = { name: 'chaos-endpoint-service', version: '1.0.0' } as const;
export const NODEINFO_20_REL = 'http://nodeinfo.diaspora.software/ns/schema/2.0';
export const NODEINFO_20_PROFILE = `application/json; profile="${NODEINFO_20_REL}#"`;

/** A did:plc-shaped identifier (24 base32 characters) that no PLC directory knows. */
export function fakePlcDid(seed: string): string {
  const rng = rngFromSeed(seed);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let id = '';
  for (let i = 0; i < 24; i++) id += alphabet[rng.intBetween(0, 31)];
  return `did:plc:${id}`;
}

/** atproto handle resolution: the DID alone, one line, no trailing newline. */
export function atprotoDid(site: Site): string {
  return site.controlDid;
}

/** The did:web document the DID resolves to; its handle is this host's name (both directions agree). */
export function didDocument(site: Site): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: site.controlDid,
    alsoKnownAs: [`at://${site.controlHostname}`],
  };
}

export function nodeinfoLinks(site: Site): { links: { rel: string; href: string }[] } {
  return { links: [{ rel: NODEINFO_20_REL, href: `${site.control}${FILE_PATHS.nodeinfo20}` }] };
}

/** NodeInfo 2.0; the schema needs at least one protocol, and this family of files is ActivityPub's. */
export function nodeinfo20(host: FileHost): Record<string, unknown> {
  const me = HOST_IDENTITY[host];
  return {
    version: '2.0',
    software: { name: SOFTWARE.name, version: SOFTWARE.version },
    protocols: ['activitypub'],
    services: { inbound: [], outbound: [] },
    openRegistrations: false,
    usage: { users: { total: 0, activeHalfyear: 0, activeMonth: 0 }, localPosts: 0, localComments: 0 },
    metadata: { nodeName: me.nodeName, nodeDescription: me.description },
  };
}

/** The one account webfinger knows on a host: acct:<name>@<hostname>. */
/** The control WebFinger's parameters; the bots twin's counterpart link keeps them. */
export const WEBFINGER_PARAMS = {
  resource: str({ required: true, minLength: 1, maxLength: 512, description: 'the URI asked about (RFC 7033: missing → 400)' }),
  rel: str({ minLength: 1, maxLength: 512, description: 'keep only links with this rel' }),
};

export function webfingerAccount(name: string, hostname: string): string {
  return `acct:${name}@${hostname}`;
}

export function webfingerJrd(site: Site): Record<string, unknown> {
  return {
    subject: webfingerAccount('control', site.controlHostname),
    aliases: [`${site.control}/`],
    links: [
      { rel: 'http://webfinger.net/rel/profile-page', type: 'text/plain', href: `${site.control}${FILE_PATHS.humans}` },
      { rel: NODEINFO_20_REL, href: `${site.control}${FILE_PATHS.nodeinfo20}` },
    ],
  };
}
