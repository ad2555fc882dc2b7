// Issue 30, zstd on /compression: the control twin really encodes zstd
// (RFC 8878) when Accept-Encoding asks for it, a frame node:zlib and curl
// decode; each chaos zstd mode is labelled zstd and refused by node:zlib's
// decoder for exactly its own reason; curl --compressed (this machine's build
// has zstd) and Chromium fail on three and take the cut frame as an empty body.
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { curl, exchange, expectChaosLines } from '../../helpers/replies.js';
import { CHROMIUM } from '../../helpers/chromium.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const chaos = (await startChaos(t)).port;
const control = (await startHttp(t, 'control')).port;
const plain = (await exchange(control, '/compression')).body;

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
/** RFC 8878 §3.1.1.1.1: the frame header descriptor's Content_Checksum_flag. */
const CHECKSUM_FLAG = 0x04;

/** node:zlib's error code for a body, or 'ok' when it decodes. */
function zstdError(body: Buffer, dictionary?: Buffer): string {
  try {
    zstdDecompressSync(body, dictionary ? { dictionary } : {});
    return 'ok';
  } catch (error) {
    return String((error as NodeJS.ErrnoException).code);
  }
}

/** The honest frame the twin sends for `Accept-Encoding: zstd`. */
const honest = await exchange(control, '/compression', { 'Accept-Encoding': 'zstd' });

t.test('control /compression: Accept-Encoding zstd gets a real zstd frame with a content checksum', async (t) => {
  t.same(honest.res.headers('Content-Encoding'), ['zstd']);
  t.same(honest.res.headers('Vary'), ['Accept-Encoding']);
  t.same(honest.body.subarray(0, 4), ZSTD_MAGIC, 'the zstd magic number');
  t.ok(((honest.body[4] as number) & CHECKSUM_FLAG) !== 0, 'Content_Checksum_flag set: a checksum to check');
  t.same(zstdDecompressSync(honest.body), plain, 'node:zlib decodes it to the plain text');
  // zstd comes last on a tie: a header that does not prefer it gets what it got before.
  const ties: [string, string][] = [
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, zstd', 'gzip'],
    ['zstd, gzip;q=0.5', 'zstd'],
    ['compress, zstd', 'zstd'],
    ['*', 'br'],
    ['zstd;q=0', 'identity'],
  ];
  for (const [acceptEncoding, coding] of ties) {
    const { res } = await exchange(control, '/compression', { 'Accept-Encoding': acceptEncoding });
    t.same(res.headers('Content-Encoding'), coding === 'identity' ? [] : [coding], `${acceptEncoding} → ${coding}`);
  }
  // The head on stdout before the body (-D /dev/stderr makes this curl crash when stderr is a pipe).
  const viaCurl = await curl(['--compressed', '-H', 'Accept-Encoding: zstd', '-D', '-', `http://127.0.0.1:${control}/compression`]);
  t.equal(viaCurl.code, 0, 'curl --compressed decodes the twin');
  const split = viaCurl.stdout.indexOf('\r\n\r\n');
  t.match(viaCurl.stdout.slice(0, split), /\r\ncontent-encoding: zstd\r\n/i, 'curl was sent zstd');
  t.equal(viaCurl.stdout.slice(split + 4), plain.toString('latin1'), 'and printed the plain text');
});

interface ZstdLie {
  readonly mode: string;
  readonly bodyEncoding: string;
  /** node:zlib's error code for the body. */
  readonly zlibCode: string;
  /** How the body relates to the honest bytes. */
  readonly shape: (t: Tap, body: Buffer) => void;
  /** curl --compressed's exit code (7.88.1, built with zstd 1.5.4). */
  readonly curlCode: number;
  /** What Chromium's navigation to it ends in. */
  readonly chromium: string;
}
type Tap = Test;

const LIES: readonly ZstdLie[] = [
  {
    mode: 'zstd-gzip-body',
    bodyEncoding: 'gzip',
    zlibCode: 'ZSTD_error_prefix_unknown',
    curlCode: 61,
    chromium: 'TypeError: Failed to fetch',
    shape: (t, body) => {
      t.same(body.subarray(0, 2), Buffer.from([0x1f, 0x8b]), 'gzip magic, no zstd magic');
      t.same(gunzipSync(body), plain, 'really gzip of the text');
    },
  },
  {
    mode: 'zstd-truncated',
    bodyEncoding: 'zstd',
    zlibCode: 'Z_BUF_ERROR',
    // curl never checks that the frame ended: exit 0, and it prints nothing (the text was one block, never complete).
    curlCode: 0,
    // Chromium too: fetch() resolves, and the body is empty.
    chromium: 'text of 0 characters',
    shape: (t, body) => {
      t.equal(body.length, Math.floor(honest.body.length / 2), 'half the frame');
      t.same(body, honest.body.subarray(0, body.length), 'the first half of the twin\'s frame');
    },
  },
  {
    mode: 'zstd-bad-checksum',
    bodyEncoding: 'zstd',
    zlibCode: 'ZSTD_error_checksum_wrong',
    curlCode: 61,
    chromium: 'TypeError: Failed to fetch',
    shape: (t, body) => {
      t.equal(body.length, honest.body.length);
      t.same(body.subarray(0, -4), honest.body.subarray(0, -4), 'the twin\'s frame up to the checksum');
      t.same([...body.subarray(-4)], [...honest.body.subarray(-4)].map((b) => b ^ 0xff), 'the 4 checksum bytes inverted');
    },
  },
  {
    mode: 'zstd-unknown-dictionary',
    bodyEncoding: 'zstd',
    zlibCode: 'ZSTD_error_dictionary_wrong',
    curlCode: 61,
    chromium: 'TypeError: Failed to fetch',
    shape: (t, body) => {
      const descriptor = body[4] as number;
      t.equal(descriptor & 0x03, 3, 'Dictionary_ID_flag 3: a 4-byte id');
      t.ok(descriptor & 0x20, 'single segment: the id follows the descriptor');
      t.equal(body.readUInt32LE(5), 0x00c4a05d, 'Dictionary_ID');
      // Without the id field the frame is the one zstd wrote against the dictionary: it needs it.
      const bare = Buffer.concat([body.subarray(0, 4), Buffer.from([descriptor & ~0x03]), body.subarray(9)]);
      t.equal(zstdError(bare), 'ZSTD_error_corruption_detected', 'without the dictionary the blocks do not decode');
      const dictionary = Buffer.from('the quick brown fox jumps over the lazy dog\nChaos Endpoint Service: /compression\n', 'latin1');
      t.same(zstdDecompressSync(bare, { dictionary }), plain, 'with it they do: the dictionary is really used');
    },
  },
];

t.test('chaos /compression: each zstd mode is labelled zstd and refused for its own reason', async (t) => {
  for (const lie of LIES) {
    t.test(lie.mode, async (t) => {
      // As with the other modes, Accept-Encoding is not consulted.
      for (const ae of [undefined, 'zstd', 'identity']) {
        const { res, body } = await exchange(chaos, `/compression?mode=${lie.mode}`, ae === undefined ? {} : { 'Accept-Encoding': ae });
        t.equal(res.status, 200);
        expectChaosLines(t, res, 'payload', '/compression', 'X-Chaos-Compression-Mode', lie.mode);
        t.same(res.headers('Content-Encoding'), ['zstd'], 'labelled zstd');
        t.same(res.headers('X-Chaos-Body-Encoding'), [lie.bodyEncoding]);
        t.equal(Number(res.header('Content-Length')), body.length, 'an honest length');
        t.equal(zstdError(body), lie.zlibCode, `node:zlib: ${lie.zlibCode}`);
        lie.shape(t, body);
      }
    });
  }
});

t.test('curl --compressed (built with zstd): exit 61 on three lies, a silent empty success on the cut frame', async (t) => {
  const version = await curl(['-V']);
  t.match(version.stdout, /\bzstd\b/, 'this curl decodes zstd');
  for (const lie of LIES) {
    const r = await curl(['--compressed', `http://127.0.0.1:${chaos}/compression?mode=${lie.mode}`]);
    t.equal(r.code, lie.curlCode, `${lie.mode}: exit ${lie.curlCode} ${r.stderr.trim()}`);
    if (lie.curlCode === 0) t.equal(r.stdout, '', `${lie.mode}: nothing printed, no error`);
    else t.match(r.stderr, /Unrecognized or bad HTTP Content or Transfer-Encoding/);
  }
});

t.test('Chromium: decodes the twin\'s zstd; fetch() rejects three zstd lies and takes the cut frame as an empty body', async (t) => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 60_000 });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  // Chromium advertises "gzip, deflate, br, zstd", which the twin answers with br; asking for zstd alone gets zstd.
  await page.setExtraHTTPHeaders({ 'Accept-Encoding': 'zstd' });
  const twinResponse = await page.goto(`http://127.0.0.1:${control}/compression`);
  t.equal(twinResponse?.headers()['content-encoding'], 'zstd', 'served zstd');
  t.equal(String(await page.evaluate('document.body.innerText')).trimEnd(), plain.toString('utf8').trimEnd(), 'Chromium shows the decoded text');
  // The lies, fetched from a page of the chaos host's own origin (a failed navigation would only time out).
  await page.goto(`http://127.0.0.1:${chaos}/status/200`);
  for (const lie of LIES) {
    const outcome = await page.evaluate(
      `fetch('/compression?mode=${lie.mode}').then((r) => r.text()).then((text) => 'text of ' + text.length + ' characters', (e) => e.name + ': ' + e.message)`,
    );
    t.equal(outcome, lie.chromium, `${lie.mode}: ${lie.chromium}`);
  }
});
