// TRUST_PROXY and the client address (shared/config/trust.ts): which entries are
// accepted, who they trust, and the canonical addresses limit keys are made of.
import t from 'tap';
import {
  addressFromBytes, canonicalAddress, clientFromForwarded, MAX_FORWARDED_HOPS, parseTrustList, peerAddress, TrustListError,
} from '../../shared/config/trust.js';

t.test('accepted entries, in canonical form', async (t) => {
  const cases: [string, string[]][] = [
    ['', []],
    [' , ,', []],
    ['127.0.0.1', ['127.0.0.1/32']],
    ['::1', ['::1/128']],
    ['10.0.0.0/8, fd00::/8', ['10.0.0.0/8', 'fd00::/8']],
    ['10.1.2.3/8', ['10.0.0.0/8']],
    ['FD00:0:0::1/16', ['fd00::/16']],
    ['::ffff:192.0.2.1', ['192.0.2.1/32']],
    ['0.0.0.0/0', ['0.0.0.0/0']],
    ['::/0', ['::/0']],
    ['loopback', ['127.0.0.0/8', '::1/128']],
    ['LOOPBACK,127.0.0.1', ['127.0.0.0/8', '::1/128', '127.0.0.1/32']],
  ];
  for (const [raw, entries] of cases) {
    const list = parseTrustList(raw);
    t.same(list.entries, entries, JSON.stringify(raw));
    t.equal(list.empty, entries.length === 0);
  }
});

t.test('refused entries name themselves', async (t) => {
  for (const raw of ['::::', '1.2.3.4/33', '::1/129', '1.2.3.4/', '/8', '10.0.0.0/08x', 'host.example', '127.0.0.1:80', '[::1]', 'fe80::1%lo', '01.2.3.4', '1.2.3', '10.0.0.0/-1', '*']) {
    let thrown: unknown;
    try {
      parseTrustList(`127.0.0.1, ${raw}`);
    } catch (error) {
      thrown = error;
    }
    t.ok(thrown instanceof TrustListError && thrown.entry === raw, `${raw} refused, by name`);
  }
});

t.test('isTrusted: addresses, ranges, both families, IPv4-mapped', async (t) => {
  const list = parseTrustList('127.0.0.1,10.0.0.0/8,192.168.4.0/22,fd00::/8,2001:db8::5');
  const cases: [string, boolean][] = [
    ['127.0.0.1', true],
    ['127.0.0.2', false],
    ['::ffff:127.0.0.1', true],
    ['::FFFF:7f00:1', true],
    ['10.255.255.255', true],
    ['11.0.0.0', false],
    ['192.168.7.255', true],
    ['192.168.8.0', false],
    ['192.168.3.255', false],
    ['fd12:3456::1', true],
    ['FD00::', true],
    ['fe00::1', false],
    ['2001:db8::5', true],
    ['2001:DB8:0:0:0:0:0:5', true],
    ['2001:db8::6', false],
    ['::1', false],
    ['', false],
    ['not an address', false],
    ['10.0.0.1:80', false],
  ];
  for (const [address, trusted] of cases) t.equal(list.isTrusted(address), trusted, address);
  t.notOk(parseTrustList('').isTrusted('127.0.0.1'), 'empty trusts nobody');
  const loopback = parseTrustList('loopback');
  t.ok(loopback.isTrusted('127.3.2.1') && loopback.isTrusted('::1') && loopback.isTrusted('::ffff:127.0.0.1'));
  t.notOk(loopback.isTrusted('::2') || loopback.isTrusted('128.0.0.1'));
  const everyone = parseTrustList('::/0');
  t.ok(everyone.isTrusted('2001:db8::1') && everyone.isTrusted('192.0.2.1'), '::/0 holds the IPv4-mapped range too');
  t.notOk(parseTrustList('0.0.0.0/0').isTrusted('2001:db8::1'), '0.0.0.0/0 is IPv4 only');
});

t.test('canonical addresses: one text per client, nothing else', async (t) => {
  const cases: [string, string | undefined][] = [
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:C000:0201', '192.0.2.1'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:0db8:0000:0001:0000:0000:0000:0001', '2001:db8:0:1::1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['::1.2.3.4', '::102:304'],
    ['', undefined],
    [' 192.0.2.1', undefined],
    ['192.0.2.1:80', undefined],
    ['[::1]', undefined],
    ['fe80::1%eth0', undefined],
    ['unknown', undefined],
    ['_hidden', undefined],
    ['01.2.3.4', undefined],
    ['256.1.1.1', undefined],
    ['::::', undefined],
    ['1:2:3:4:5:6:7:8:9', undefined],
    ['x'.repeat(15_000), undefined],
  ];
  for (const [text, canonical] of cases) t.equal(canonicalAddress(text), canonical, text.slice(0, 40));
  t.equal(peerAddress('::ffff:127.0.0.1'), '127.0.0.1');
  t.equal(peerAddress('::1'), '::1');
  t.equal(peerAddress(undefined), '');
  t.equal(addressFromBytes(Uint8Array.of(192, 0, 2, 1)), '192.0.2.1');
  t.equal(addressFromBytes(Uint8Array.of(0x20, 0x01, 0x0d, 0xb8, ...Array<number>(11).fill(0), 1)), '2001:db8::1');
  t.equal(addressFromBytes(Uint8Array.of(...Array<number>(10).fill(0), 0xff, 0xff, 10, 0, 0, 1)), '10.0.0.1');
  t.throws(() => addressFromBytes(Uint8Array.of(1, 2, 3)));
});

t.test('X-Forwarded-For: the right-most address that is not a trusted proxy, else the furthest trusted one', async (t) => {
  const trust = parseTrustList('127.0.0.1,10.0.0.0/8');
  const cases: [string, string | undefined][] = [
    ['192.0.2.1', '192.0.2.1'],
    ['198.51.100.9, 192.0.2.1', '192.0.2.1'],
    ['198.51.100.9,192.0.2.1', '192.0.2.1'],
    ['192.0.2.1, 10.0.0.5', '192.0.2.1'],
    ['192.0.2.1, 10.0.0.5, 127.0.0.1', '192.0.2.1'],
    ['192.0.2.1, unknown', '192.0.2.1'],
    ['192.0.2.1, , garbage, 192.0.2.1:443, [::1]', '192.0.2.1'],
    ['2001:DB8::0:1', '2001:db8::1'],
    ['::ffff:192.0.2.5', '192.0.2.5'],
    // Only trusted addresses: the client sits on the proxy's network; the left-most one vouched for.
    ['10.0.0.5', '10.0.0.5'],
    ['10.0.0.7, 10.0.0.5, 127.0.0.1', '10.0.0.7'],
    ['unknown', undefined],
    ['', undefined],
    [',,,', undefined],
    ['x'.repeat(15_000), undefined],
    [`192.0.2.1, ${'x'.repeat(15_000)}`, '192.0.2.1'],
  ];
  for (const [value, client] of cases) t.equal(clientFromForwarded(value, trust), client, value.slice(0, 60));
  const deep = ['192.0.2.1', ...Array<string>(MAX_FORWARDED_HOPS).fill('garbage')].join(',');
  t.equal(clientFromForwarded(deep, trust), undefined, `only the last ${MAX_FORWARDED_HOPS} entries are read`);
  const commas = `192.0.2.1${','.repeat(7_500)}`;
  t.equal(clientFromForwarded(commas, trust), undefined, 'a header of commas costs a bounded walk');
});
