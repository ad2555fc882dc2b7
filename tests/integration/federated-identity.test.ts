// The bots host (SPEC §1.6, §4.1 "Crawler chaos"), category federated-identity:
// atproto-did, did.json, WebFinger and NodeInfo, each mode telling exactly its
// documented lie, on the wire.
import t from 'tap';
import { nodeinfo20Problems } from '../helpers/documents.js';
import { type Checks, differingKeys, lines, mediaType, mentionsControl, parses, startBotsFiles } from '../helpers/bots-files.js';

const { control, bots, C, B, ACCOUNT, rawGet, follow, status, modeTests } = await startBotsFiles(t);

const BOTS_DID = `did:web:${encodeURIComponent(new URL(B).host)}`;
const CONTROL_DID = `did:web:${encodeURIComponent(new URL(C).host)}`;

/** Every endpoint → every mode → what its lie looks like on the wire, in catalog mode order. */
const CHECKS: Checks = {
  '/.well-known/atproto-did': {
    'wrong-method': (t, r) => {
      t.match(r.text, /^did:key:z[1-9A-HJ-NP-Za-km-z]+$/);
    },
    'several-lines': (t, r) => {
      const dids = r.text.split('\n').filter((l) => l !== '');
      t.equal(dids.length, 2);
      t.equal(dids[0], BOTS_DID);
      t.match(dids[1], /^did:plc:[a-z2-7]{24}$/);
    },
    'other-host': (t, r) => {
      t.equal(r.text, CONTROL_DID);
      t.not(r.text, BOTS_DID);
    },
    'whitespace-junk': (t, r) => {
      t.same([...r.body.subarray(0, 5)], [0xef, 0xbb, 0xbf, 0x20, 0x20], 'BOM and spaces first');
      t.equal(r.body.subarray(5).toString(), `${BOTS_DID}  \r\n\r\n\t`);
    },
    'invalid-syntax': (t, r) => {
      t.match(r.text, /^DID:WEB:/);
      t.equal(`did:web:${r.text.slice(8)}`, BOTS_DID, 'otherwise this host');
    },
    empty: (t, r) => {
      t.equal(r.res.status, 200);
      t.equal(r.body.length, 0, 'no DID at all');
    },
  },
  '/.well-known/did.json': {
    'id-mismatch': (t, r) => t.equal(JSON.parse(r.text).id, CONTROL_DID),
    'missing-context': (t, r) => {
      const doc = JSON.parse(r.text);
      t.notOk('@context' in doc);
      t.equal(doc.id, BOTS_DID);
    },
    'aka-other-handle': (t, r) => {
      const doc = JSON.parse(r.text);
      t.equal(doc.id, BOTS_DID);
      t.same(doc.alsoKnownAs, ['at://someone-else.example.com']);
    },
    'invalid-json': (t, r) => {
      t.notOk(parses(r.text));
      t.match(r.text, /\n {2}id: /, 'an unquoted key');
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.equal(JSON.parse(r.text).id, BOTS_DID);
    },
  },
  '/.well-known/webfinger': {
    'subject-mismatch': (t, r) => {
      t.equal(r.res.header('content-type'), 'application/jrd+json');
      const subject = JSON.parse(r.text).subject;
      t.not(subject, ACCOUNT);
      t.match(subject, /^acct:someone-else@/);
    },
    'answers-any-resource': async (t, r) => {
      t.equal(JSON.parse(r.text).subject, ACCOUNT);
      const other = await rawGet(bots, `/.well-known/webfinger?mode=answers-any-resource&resource=${encodeURIComponent('acct:nobody@example.org')}`);
      t.equal(other.res.status, 200, 'a resource on another host still answers 200');
      t.equal(JSON.parse(other.text).subject, 'acct:nobody@example.org');
    },
    'cross-host-links': (t, r) => {
      const jrd = JSON.parse(r.text);
      t.equal(jrd.subject, ACCOUNT);
      t.ok(jrd.links.length > 0 && jrd.links.every((l: { href: string }) => l.href.startsWith(`${C}/`)));
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.equal(JSON.parse(r.text).subject, ACCOUNT);
    },
    'invalid-json': (t, r) => {
      t.equal(r.res.header('content-type'), 'application/jrd+json');
      t.notOk(parses(r.text));
      t.match(r.text, /^\{\n {2}"subject"/);
    },
  },
  '/.well-known/nodeinfo': {
    'wrong-rel': (t, r) => t.same(JSON.parse(r.text).links, [{ rel: 'https://nodeinfo.diaspora.software/ns/schema/2.0', href: `${B}/nodeinfo/2.0` }]),
    'other-host': async (t, r) => {
      const [link] = JSON.parse(r.text).links;
      t.equal(link.rel, 'http://nodeinfo.diaspora.software/ns/schema/2.0');
      t.equal(link.href, `${C}/nodeinfo/2.0`);
      t.equal(await status(link.href), 200);
    },
    'dead-href': async (t, r) => {
      const [link] = JSON.parse(r.text).links;
      t.equal(await status(link.href), 404);
    },
    'rel-href-mismatch': (t, r) => t.same(JSON.parse(r.text).links, [{ rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${B}/nodeinfo/2.0` }]),
    'links-not-array': (t, r) => {
      const doc = JSON.parse(r.text);
      t.notOk(Array.isArray(doc.links));
      t.equal(doc.links.href, `${B}/nodeinfo/2.0`);
    },
  },
  '/nodeinfo/2.0': {
    'schema-invalid': (t, r) => {
      const problems = nodeinfo20Problems(JSON.parse(r.text));
      t.ok(problems.includes('software') && problems.includes('openRegistrations') && problems.includes('usage count -1'), problems.join('; '));
    },
    'version-contradicts-path': (t, r) => {
      const doc = JSON.parse(r.text);
      t.equal(doc.version, '2.1');
      t.ok(nodeinfo20Problems(doc).includes('version must be 2.0'));
    },
    'missing-required': (t, r) => {
      const problems = nodeinfo20Problems(JSON.parse(r.text));
      for (const field of ['protocols', 'services', 'usage', 'metadata']) t.ok(problems.includes(`missing ${field}`), `no ${field}`);
    },
    'invalid-json': (t, r) => {
      t.notOk(parses(r.text));
      t.match(r.text, /"localPosts": ?NaN/);
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.same(nodeinfo20Problems(JSON.parse(r.text)), [], 'the document itself is valid');
    },
  },
};

modeTests(t, 'federated-identity', CHECKS);

t.test('nodeinfo/2.0: a bots-host document in every mode; only the documented lie differs', async (t) => {
  const twin = JSON.parse((await rawGet(control, '/nodeinfo/2.0')).text) as Record<string, unknown>;
  const valid = JSON.parse((await rawGet(bots, '/nodeinfo/2.0?mode=wrong-content-type')).text) as Record<string, unknown>;
  t.same(nodeinfo20Problems(valid), [], 'the correct bots document is schema-valid');
  t.same(differingKeys(valid, twin), ['metadata'], 'it differs from the control document only in its metadata');
  const metadata = valid.metadata as Record<string, unknown>;
  t.equal(metadata.nodeName, 'Chaos Endpoint Service (bots host)', 'names the bots host');
  t.match(metadata.nodeDescription, /misbehave on purpose/);
  t.notOk(mentionsControl(metadata), 'says nothing of the control host or of twins');
  const expected: Readonly<Record<string, readonly string[]>> = {
    'schema-invalid': ['openRegistrations', 'software', 'usage'],
    'version-contradicts-path': ['software', 'version'],
    'missing-required': ['metadata', 'protocols', 'services', 'usage'],
    'invalid-json': [],
    'wrong-content-type': [],
  };
  for (const [mode, keys] of Object.entries(expected)) {
    const text = (await rawGet(bots, `/nodeinfo/2.0?mode=${mode}`)).text;
    // The one token JSON lacks, put back as the number it stands for.
    const doc = JSON.parse(mode === 'invalid-json' ? text.replace(/: ?NaN/, ': 0') : text) as Record<string, unknown>;
    t.same(differingKeys(doc, valid), keys, `${mode}: only ${keys.join(', ') || 'nothing'} differs`);
    if (doc.metadata !== undefined) t.same(doc.metadata, metadata, `${mode}: the bots host's metadata`);
  }
});

t.test('webfinger: unknown resources 404, a missing resource is a 400', async (t) => {
  const unknown = await rawGet(bots, `/.well-known/webfinger?resource=${encodeURIComponent('acct:nobody@example.org')}`);
  t.equal(unknown.res.status, 404);
  t.equal(unknown.res.header('x-chaos-mode'), 'subject-mismatch');
  const missing = await rawGet(bots, '/.well-known/webfinger');
  t.equal(missing.res.status, 400);
  t.equal(JSON.parse(missing.text).param, 'resource');
  t.notOk(missing.res.headerLines.some(([name]) => /^x-chaos-/i.test(name)));
});

t.test('webfinger: the counterpart keeps resource and rel, drops mode, and answers when followed', async (t) => {
  const controlAccount = `acct:control@${new URL(C).hostname}`;
  const rel = 'http://nodeinfo.diaspora.software/ns/schema/2.0';
  const query = `resource=${encodeURIComponent(controlAccount)}&mode=answers-any-resource&rel=${encodeURIComponent(rel)}&foo=1`;
  const r = await rawGet(bots, `/.well-known/webfinger?${query}`);
  t.equal(r.res.status, 200);
  const twin = r.res.header('x-chaos-counterpart') as string;
  t.equal(twin, `${C}/.well-known/webfinger?resource=${encodeURIComponent(controlAccount)}&rel=${encodeURIComponent(rel)}`, 'resource and rel as sent, in order; mode and unknown parameters dropped');
  const followed = await follow(twin);
  t.equal(followed.res.status, 200, 'the control twin answers the same question');
  t.equal(mediaType(followed), 'application/jrd+json');
  const jrd = JSON.parse(followed.text) as { subject: string; links: { rel: string }[] };
  t.equal(jrd.subject, controlAccount);
  t.same(jrd.links.map((l) => l.rel), [rel], 'rel reached the twin');

  // The bots account is unknown on control: an honest 404 there, not a 400 for a missing resource.
  const own = await rawGet(bots, `/.well-known/webfinger?resource=${encodeURIComponent(ACCOUNT)}&mode=cross-host-links`);
  const ownTwin = await follow(own.res.header('x-chaos-counterpart') as string);
  t.equal(ownTwin.res.status, 404);
  t.same(JSON.parse(ownTwin.text), { error: 'unknown_resource', resource: ACCOUNT });
  const unknown = await rawGet(bots, `/.well-known/webfinger?resource=${encodeURIComponent('acct:nobody@example.org')}`);
  t.equal(unknown.res.header('x-chaos-counterpart'), `${C}/.well-known/webfinger?resource=${encodeURIComponent('acct:nobody@example.org')}`, 'on the honest 404 too');
});
