// The bots host (SPEC §1.6, §4.1 "Crawler chaos"), category site-trust:
// security.txt (both paths), ads.txt, humans.txt and gpc.json, each mode
// telling exactly its documented lie, on the wire.
import t from 'tap';
import { adsRecords, isCalendarDate, securityTxtProblems } from '../helpers/documents.js';
import { type Checks, lines, mediaType, parses, startBotsFiles } from '../helpers/bots-files.js';

const { bots, C, B, rawGet, follow, status, modeTests } = await startBotsFiles(t);

const DAY_MS = 86_400_000;

/** Every endpoint → every mode → what its lie looks like on the wire, in catalog mode order. */
const CHECKS: Checks = {
  '/.well-known/security.txt': {
    expired: (t, r) => t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['expired']),
    'dead-contact': async (t, r) => {
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), []);
      const contact = /^Contact: (.+)$/m.exec(r.text)?.[1] as string;
      t.equal(await status(contact), 404, 'the Contact is dead');
    },
    'canonical-mismatch': (t, r) => {
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['Canonical does not name the served URL']);
      t.match(r.text, new RegExp(`^Canonical: ${C}/.well-known/security.txt$`, 'm'));
    },
    'unsigned-claim': (t, r) => {
      t.match(r.text, /^-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n/);
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['signature claimed but missing']);
    },
    'missing-expires': (t, r) => t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['no Expires']),
    'duplicate-expires': (t, r) => {
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), ['more than one Expires']);
      const values = [...r.text.matchAll(/^Expires: (.+)$/gm)].map((m) => m[1]);
      t.not(values[0], values[1], 'with different dates');
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.same(securityTxtProblems(r.text, `${B}/.well-known/security.txt`), []);
    },
  },
  '/security.txt': {
    'contradicts-well-known': async (t, r) => {
      const wellKnown = (await rawGet(bots, '/.well-known/security.txt?mode=dead-contact')).text;
      const field = (text: string, name: string) => new RegExp(`^${name}: (.+)$`, 'm').exec(text)?.[1];
      t.not(field(r.text, 'Contact'), field(wellKnown, 'Contact'), 'another Contact');
      t.not(field(r.text, 'Expires'), field(wellKnown, 'Expires'), 'another Expires');
      t.equal(await status(field(r.text, 'Contact') as string), 200, 'each one resolving');
    },
    'redirect-other-host': (t, r) => {
      t.equal(r.res.status, 301);
      t.equal(r.res.header('location'), `${C}/.well-known/security.txt`);
    },
    'redirect-loop': async (t, r) => {
      t.equal(r.res.status, 302);
      const location = r.res.header('location') as string;
      t.equal(location, `${B}/security.txt?mode=redirect-loop`);
      const again = await follow(location);
      t.equal(again.res.header('location'), location, 'and again');
    },
  },
  '/ads.txt': {
    'malformed-lines': (t, r) => {
      const { valid, malformed } = adsRecords(r.text);
      t.same(valid, [], 'no valid record');
      t.equal(malformed.length, 5);
    },
    contradictory: (t, r) => {
      const { valid, malformed } = adsRecords(r.text);
      t.same(malformed, []);
      t.same(valid.map((v) => v.relationship), ['DIRECT', 'RESELLER']);
      t.equal(valid[0]?.account, valid[1]?.account, 'one seller');
    },
    bom: (t, r) => {
      t.same([...r.body.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
      t.equal(r.body.toString('latin1', 3, 14), 'example.com', 'glued to the first domain');
    },
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.equal(adsRecords(r.text).valid.length, 1);
    },
  },
  '/humans.txt': {
    contradictory: (t, r) => {
      t.match(r.text, /\/\* TEAM \*\/\nMaintainer: Ada Placeholder\n/);
      t.match(r.text, /^Not contributing: Ada Placeholder /m);
    },
    recursive: (t, r) => {
      const fields = r.text.split('\n').filter((l) => /^[A-Z][\w ]*: /.test(l));
      t.ok(fields.length >= 5);
      for (const field of fields) t.match(field, /\/humans\.txt/, `${field} refers to /humans.txt`);
    },
    'time-paradox': (t, r) => {
      const dated = [...r.text.matchAll(/(\d{4})\/(\d{2})\/(\d{2})( (\d{2}):(\d{2}))?/g)];
      t.ok(dated.length >= 4);
      for (const [text, y, m, d, , hour] of dated) {
        const possible = isCalendarDate(Number(y), Number(m), Number(d)) && (hour === undefined || Number(hour) < 24);
        t.notOk(possible, `${text} is impossible`);
      }
    },
  },
  '/.well-known/gpc.json': {
    'string-boolean': (t, r) => t.equal(JSON.parse(r.text).gpc, 'true'),
    'future-last-update': (t, r) => {
      const doc = JSON.parse(r.text);
      t.equal(doc.gpc, true);
      t.ok(Date.parse(doc.lastUpdate) > Date.now() + 365 * DAY_MS);
    },
    'impossible-date': (t, r) => {
      const [y, m, d] = (JSON.parse(r.text).lastUpdate as string).split('-').map(Number);
      t.notOk(isCalendarDate(y as number, m as number, d as number));
    },
    'invalid-json': (t, r) => t.notOk(parses(r.text)),
    'wrong-content-type': (t, r) => {
      t.equal(mediaType(r), 'text/html');
      t.equal(JSON.parse(r.text).gpc, true);
    },
  },
};

modeTests(t, 'site-trust', CHECKS);

t.test('humans.txt: status 200, text/plain and X-Chaos-Humans-Mode in every mode (SPEC §4.1)', async (t) => {
  for (const mode of ['contradictory', 'recursive', 'time-paradox']) {
    const r = await rawGet(bots, `/humans.txt?mode=${mode}`);
    t.equal(r.res.status, 200);
    t.equal(mediaType(r), 'text/plain');
    t.equal(r.res.header('x-chaos-humans-mode'), mode);
  }
  t.equal((await rawGet(bots, '/humans.txt')).res.header('x-chaos-humans-mode'), 'contradictory', 'contradictory by default');
});
