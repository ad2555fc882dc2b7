// The PROXY protocol v2 reader (shared/config/proxy-v2.ts), bytes in,
// decision out: what HAProxy sends, every way a header can be broken, and the
// same header fed in every split.
import t from 'tap';
import { MAX_PROXY_V2_LENGTH, parseProxyV2, type ProxyV2Result } from '../../shared/config/proxy-v2.js';
import { proxyV2, SIGNATURE } from '../helpers/proxy-v2.js';

const HTTP = Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1');

const accepted: [string, Buffer, ProxyV2Result][] = [
  ['TCP over IPv4', proxyV2({ source: '192.0.2.1', sourcePort: 51234 }), { kind: 'proxied', source: '192.0.2.1', sourcePort: 51234, headerLength: 28 }],
  ['TCP over IPv6', proxyV2({ source: '2001:db8::1', sourcePort: 443 }), { kind: 'proxied', source: '2001:db8::1', sourcePort: 443, headerLength: 52 }],
  ['IPv6 written canonically (zeros compressed, lower case)', proxyV2({ source: '2001:DB8:0:0:1:0:0:1' }), { kind: 'proxied', source: '2001:db8::1:0:0:1', sourcePort: 40000, headerLength: 52 }],
  ['IPv4-mapped IPv6 becomes IPv4', proxyV2({ source: '::ffff:192.0.2.9' }), { kind: 'proxied', source: '192.0.2.9', sourcePort: 40000, headerLength: 52 }],
  ['TLVs are skipped', proxyV2({ source: '192.0.2.1', tlvs: [{ type: 0x05, value: Buffer.from('unique-id') }, { type: 0x04, value: Buffer.alloc(0) }] }),
    { kind: 'proxied', source: '192.0.2.1', sourcePort: 40000, headerLength: 28 + 12 + 3 }],
  ['LOCAL (health check): keep the socket address', proxyV2({ command: 'local' }), { kind: 'local', headerLength: 16 }],
  ['LOCAL with an address block: the block is skipped', proxyV2({ command: 'local', source: '192.0.2.1' }), { kind: 'local', headerLength: 28 }],
  ['LOCAL ignores the family byte', proxyV2({ command: 'local', familyTransport: 0xff, block: Buffer.alloc(0) }), { kind: 'local', headerLength: 16 }],
  ['PROXY with AF_UNSPEC: keep the socket address', proxyV2({ familyTransport: 0x00 }), { kind: 'local', headerLength: 16 }],
  ['PROXY with AF_UNSPEC and a block', proxyV2({ familyTransport: 0x00, block: Buffer.alloc(7) }), { kind: 'local', headerLength: 23 }],
  ['UDP over IPv4 (valid, unused): falls back to UNSPEC', proxyV2({ familyTransport: 0x12 }), { kind: 'local', headerLength: 28 }],
  ['UNIX stream (valid, unused): falls back to UNSPEC', proxyV2({ familyTransport: 0x31, block: Buffer.alloc(216) }), { kind: 'local', headerLength: 232 }],
  ['the largest length accepted', proxyV2({ familyTransport: 0x00, block: Buffer.alloc(MAX_PROXY_V2_LENGTH) }), { kind: 'local', headerLength: 16 + MAX_PROXY_V2_LENGTH }],
];

for (const [name, header, expected] of accepted) {
  t.test(name, async (t) => {
    t.same(parseProxyV2(header), expected, 'the header alone');
    t.same(parseProxyV2(Buffer.concat([header, HTTP])), expected, 'followed by the request: headerLength marks where HTTP starts');
    // Every proper prefix waits for more; never a decision on part of a header.
    for (let n = 0; n < header.length; n++) {
      const r = parseProxyV2(header.subarray(0, n));
      if (r.kind !== 'need-more') return t.fail(`${n} of ${header.length} bytes: ${JSON.stringify(r)}`);
    }
    t.pass('every prefix needs more');
  });
}

const rejected: [string, Buffer, RegExp][] = [
  ['plain HTTP from a trusted peer', HTTP, /does not start with a PROXY protocol v2 header/],
  ['PROXY protocol v1 text', Buffer.from('PROXY TCP4 192.0.2.1 198.51.100.1 5000 80\r\n'), /does not start/],
  ['wrong signature (last byte)', Buffer.concat([SIGNATURE.subarray(0, 11), Buffer.from([0x0b]), proxyV2().subarray(12)]), /does not start/],
  ['garbage', Buffer.from([0xde, 0xad, 0xbe, 0xef]), /does not start/],
  ['an empty line then garbage', Buffer.from('\r\n\r\nGET'), /does not start/],
  ['version 1 in the binary format', proxyV2({ version: 1 }), /version 1 is not supported/],
  ['version 3', proxyV2({ version: 3 }), /version 3 is not supported/],
  ['unknown command', proxyV2({ command: 0x2 }), /unknown PROXY protocol command 0x22/],
  ['unknown family', proxyV2({ familyTransport: 0x41 }), /address family or transport 0x41/],
  ['unknown transport', proxyV2({ familyTransport: 0x13 }), /address family or transport 0x13/],
  ['oversized length', proxyV2({ familyTransport: 0x00, length: MAX_PROXY_V2_LENGTH + 1 }), /declares 4097 bytes, more than 4096/],
  ['the largest length field', proxyV2({ familyTransport: 0x00, length: 0xffff }), /declares 65535 bytes/],
  ['IPv4 block too short', proxyV2({ familyTransport: 0x11, block: Buffer.alloc(11) }), /block of 11 bytes is too short/],
  ['IPv6 block too short (an IPv4 one)', proxyV2({ familyTransport: 0x21, block: Buffer.alloc(12) }), /block of 12 bytes is too short/],
  ['TLV cut short', proxyV2({ block: Buffer.concat([proxyV2().subarray(16), Buffer.from([0x05, 0x00])]) }), /TLV cut short/],
  ['TLV longer than the header', proxyV2({ block: Buffer.concat([proxyV2().subarray(16), Buffer.from([0x05, 0x00, 0x09, 0x41])]) }), /TLV longer than the header/],
];

for (const [name, input, reason] of rejected) {
  t.test(`refused: ${name}`, async (t) => {
    const r = parseProxyV2(input);
    t.equal(r.kind, 'reject');
    t.match(r.kind === 'reject' ? r.reason : '', reason);
  });
}

t.test('refused as early as the first byte that cannot belong to a header', async (t) => {
  t.equal(parseProxyV2(Buffer.from('G')).kind, 'reject', 'one byte of HTTP');
  t.equal(parseProxyV2(Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x01])).kind, 'reject', 'the NUL of the signature missing');
  t.equal(parseProxyV2(Buffer.concat([SIGNATURE, Buffer.from([0x31])])).kind, 'reject', 'the version byte, before the rest arrives');
  t.equal(parseProxyV2(Buffer.concat([SIGNATURE, Buffer.from([0x21, 0x51])])).kind, 'reject', 'the family byte');
  t.equal(parseProxyV2(proxyV2({ length: 5000 }).subarray(0, 16)).kind, 'reject', 'the length field, before any of the block');
  t.equal(parseProxyV2(proxyV2({ familyTransport: 0x11, block: Buffer.alloc(4) }).subarray(0, 16)).kind, 'reject', 'a block too short for its family');
  t.equal(parseProxyV2(Buffer.alloc(0)).kind, 'need-more', 'nothing yet');
});

t.test('bytes of any value never throw', async (t) => {
  // A deterministic walk over headers with one byte changed (every position, several values).
  const base = Buffer.concat([proxyV2({ source: '2001:db8::7', tlvs: [{ type: 1, value: Buffer.from('h2') }] }), HTTP]);
  let decisions = 0;
  let overreach = 0;
  for (let i = 0; i < base.length; i++) {
    for (const value of [0x00, 0x01, 0x20, 0x7f, 0x80, 0xff]) {
      const input = Buffer.from(base);
      input[i] = value;
      for (const end of [i + 1, 16, input.length]) {
        const r = parseProxyV2(input.subarray(0, end));
        if (!['need-more', 'proxied', 'local', 'reject'].includes(r.kind)) return t.fail(JSON.stringify(r));
        if ((r.kind === 'proxied' || r.kind === 'local') && r.headerLength > end) overreach++;
        decisions++;
      }
    }
  }
  t.ok(decisions > 1000, `${decisions} inputs decided`);
  t.equal(overreach, 0, 'a header never reaches past the input');
});
