// The chaos host's HPACK decoder (services/chaos/http2/hpack.ts) on the
// RFC 7541 Appendix C examples: C.2 (one field each), C.3/C.4 (three
// requests on one connection, plain and Huffman), C.5/C.6 (three responses
// with a 256-byte table, evictions). C.2-C.5 bytes are the RFC's; C.6's were
// produced by Debian's python3-hpack 4.0 (the oracle) from the C.5 lists and
// checked against the RFC's decoded lists and table sizes below.
import t, { type Test } from 'tap';
import { encodeInteger, encodeLiterals, HpackDecoder, HpackError, huffmanDecode, huffmanEncode, type HeaderField } from '../../services/chaos/http2/hpack.js';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

interface Step {
  readonly block: string;
  readonly fields: readonly HeaderField[];
  readonly table: readonly HeaderField[];
  readonly size: number;
}

function run(t: Test, decoder: HpackDecoder, steps: readonly Step[]): void {
  for (const [i, step] of steps.entries()) {
    t.same(decoder.decode(hex(step.block)), step.fields, `block ${i + 1}: fields`);
    t.same(decoder.entries, step.table, `block ${i + 1}: dynamic table`);
    t.equal(decoder.tableBytes, step.size, `block ${i + 1}: table size`);
  }
}


const AUTH: HeaderField = [':authority', 'www.example.com'];
const NO_CACHE: HeaderField = ['cache-control', 'no-cache'];
const CUSTOM: HeaderField = ['custom-key', 'custom-value'];
const REQUESTS = (blocks: readonly string[]): Step[] => [
  { block: blocks[0] as string, fields: [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], AUTH], table: [AUTH], size: 57 },
  { block: blocks[1] as string, fields: [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], AUTH, NO_CACHE], table: [NO_CACHE, AUTH], size: 110 },
  {
    block: blocks[2] as string,
    fields: [[':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], AUTH, CUSTOM],
    table: [CUSTOM, NO_CACHE, AUTH],
    size: 164,
  },
];

const D1: HeaderField = ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'];
const D2: HeaderField = ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'];
const LOC: HeaderField = ['location', 'https://www.example.com'];
const PRIV: HeaderField = ['cache-control', 'private'];
const GZIP: HeaderField = ['content-encoding', 'gzip'];
const COOKIE: HeaderField = ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'];
const RESPONSES = (blocks: readonly string[]): Step[] => [
  { block: blocks[0] as string, fields: [[':status', '302'], PRIV, D1, LOC], table: [LOC, D1, PRIV, [':status', '302']], size: 222 },
  { block: blocks[1] as string, fields: [[':status', '307'], PRIV, D1, LOC], table: [[':status', '307'], LOC, D1, PRIV], size: 222 },
  { block: blocks[2] as string, fields: [[':status', '200'], PRIV, D2, LOC, GZIP, COOKIE], table: [COOKIE, GZIP, D2], size: 215 },
];

t.test('C.2: one literal of each kind and an indexed field', async (t) => {
  const decoder = new HpackDecoder();
  t.same(decoder.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572')), [['custom-key', 'custom-header']]);
  t.equal(decoder.tableBytes, 55, 'C.2.1 adds to the table');
  const fresh = new HpackDecoder();
  t.same(fresh.decode(hex('040c 2f73 616d 706c 652f 7061 7468')), [[':path', '/sample/path']]);
  t.equal(fresh.tableBytes, 0, 'C.2.2 without indexing adds nothing');
  t.same(fresh.decode(hex('1008 7061 7373 776f 7264 0673 6563 7265 74')), [['password', 'secret']]);
  t.equal(fresh.tableBytes, 0, 'C.2.3 never indexed adds nothing');
  t.same(fresh.decode(hex('82')), [[':method', 'GET']], 'C.2.4');
});

t.test('C.3: requests without Huffman', async (t) => {
  run(t, new HpackDecoder(), REQUESTS([
    '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
    '8286 84be 5808 6e6f 2d63 6163 6865',
    '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
  ]));
});

t.test('C.4: requests with Huffman', async (t) => {
  run(t, new HpackDecoder(), REQUESTS([
    '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
    '8286 84be 5886 a8eb 1064 9cbf',
    '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
  ]));
});

t.test('C.5: responses without Huffman, table 256', async (t) => {
  run(t, new HpackDecoder({ maxTableSize: 256, maxListBytes: 16384 }), RESPONSES([
    '4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
    '4803 3330 37c1 c0bf',
    '88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31',
  ]));
});

t.test('C.6: responses with Huffman, table 256', async (t) => {
  run(t, new HpackDecoder({ maxTableSize: 256, maxListBytes: 16384 }), RESPONSES([
    '488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c78f0b97c8e9ae82ae43d3',
    '4883640effc1c0bf',
    '88c16196d07abe941054d444a8200595040b8166e084a62d1bffc05a839bd9ab77ad94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007',
  ]));
});

t.test('size updates: honoured at the start, refused above the advertised size or after a field', async (t) => {
  const decoder = new HpackDecoder();
  decoder.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'));
  t.same(decoder.decode(Buffer.from([0x20])), [], 'size update to 0');
  t.equal(decoder.tableBytes, 0, 'evicts everything');
  t.throws(() => new HpackDecoder().decode(Buffer.from(encodeInteger(4097, 5, 0x20))), HpackError, 'above 4096');
  t.same(new HpackDecoder().decode(Buffer.from(encodeInteger(4096, 5, 0x20))), [], '4096 itself is fine');
  t.throws(() => new HpackDecoder().decode(Buffer.from([0x82, 0x20])), HpackError, 'after a field');
});

t.test('malformed blocks are HpackErrors', async (t) => {
  const cases: readonly [string, Buffer][] = [
    ['index 0', Buffer.from([0x80])],
    ['index past the tables', Buffer.from([0xbe])],
    ['string past the block', Buffer.from([0x04, 0x05, 0x61])],
    ['integer never ends', Buffer.from([0xff, 0xff, 0xff])],
    ['integer too large', Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])],
    ['Huffman EOS', Buffer.from([0x04, 0x84, 0xff, 0xff, 0xff, 0xff, 0x00])],
    ['Huffman padding of zeros', Buffer.from([0x04, 0x81, 0x00])],
    ['Huffman padding longer than 7 bits', Buffer.from([0x04, 0x82, 0x1f, 0xff])],
  ];
  for (const [name, block] of cases) t.throws(() => new HpackDecoder().decode(block), HpackError, name);
});

t.test('decoded list bound: 16 KiB of fields (name + value + 32 each)', async (t) => {
  const field = (n: number): HeaderField => [`x-${String(n).padStart(4, '0')}`, 'v'.repeat(200)];
  const under = Array.from({ length: 70 }, (_, i) => field(i)); // 70 × 238 = 16660 > 16384
  const fits = under.slice(0, 68); // 68 × 238 = 16184
  t.equal(new HpackDecoder().decode(encodeLiterals(fits)).length, 68, 'just under: decoded');
  const error = t.throws(() => new HpackDecoder().decode(encodeLiterals(under))) as unknown as HpackError;
  t.equal(error.bound, true, 'just over: a bound (ENHANCE_YOUR_CALM), not malformed input');
});

t.test('Huffman round trip and the literal encoder', async (t) => {
  const text = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join('');
  t.equal(huffmanDecode(huffmanEncode(text)), text, 'all 256 symbols');
  t.equal(huffmanEncode('www.example.com').toString('hex'), 'f1e3c2e5f23a6ba0ab90f4ff', 'RFC C.4.1 string');
  const fields: HeaderField[] = [[':status', '200'], ['X-Upper', 'kept as given'], ['long', 'x'.repeat(300)]];
  t.same(new HpackDecoder().decode(encodeLiterals(fields)), fields, 'literals decode to the same fields, case kept');
  t.equal(new HpackDecoder().tableBytes, 0);
});
