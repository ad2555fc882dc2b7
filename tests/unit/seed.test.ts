import { createHash } from 'node:crypto';
import t from 'tap';
import { freshSeed, rngFromSeed, seededBytes, stateForSeed } from '../../shared/primitives/seed.js';

// Golden vectors: the permanent seed contract (DESIGN §6). If one of these
// changes, every seeded output of the service changed: that is a breaking change.
t.test('golden vectors', async (t) => {
  t.same(stateForSeed('42'), [-1269020813, -1920051702, -834297688, 2115178705]);
  t.same(stateForSeed(''), [1120186595, 337443992, -923468902, 616132505]);
  t.equal(seededBytes('42', 16).toString('hex'), 'db66a10b1a162f0377deaa3ecf25d083');
  t.equal(seededBytes('42', 7).toString('hex'), 'db66a10b1a162f', 'a partial word takes the low bytes of the next draw');
  t.equal(seededBytes('', 8).toString('hex'), '316cd638d7c6ef81');
  t.equal(seededBytes('héllo ✓', 12).toString('hex'), '82aa217af342dc8feeb92146', 'the seed is hashed as UTF-8');
  const rng = rngFromSeed('42');
  t.same([rng.nextInt32(), rng.nextInt32(), rng.nextInt32()], [195127003, 53417498, 1051385463]);
});

// An independent reading of the contract: SHA-256 → four LE int32 → xoroshiro128+
// (a=24, b=16, c=37; 64-bit words with the high half first), output = low 32 bits of s0+s1.
t.test('matches a reference xoroshiro128+ built from the contract text', async (t) => {
  const M64 = (1n << 64n) - 1n;
  const rotl = (x: bigint, k: bigint): bigint => ((x << k) | (x >> (64n - k))) & M64;
  for (const seed of ['42', '', 'any string at all', '🦀']) {
    const d = createHash('sha256').update(seed, 'utf8').digest();
    const w = [0, 4, 8, 12].map((o) => BigInt(d.readUInt32LE(o)));
    let s0 = (w[0]! << 32n) | w[1]!;
    let s1 = (w[2]! << 32n) | w[3]!;
    const expected = Buffer.alloc(64);
    for (let i = 0; i < 16; i++) {
      expected.writeUInt32LE(Number((s0 + s1) & 0xffffffffn), i * 4);
      s1 ^= s0;
      s0 = rotl(s0, 24n) ^ s1 ^ ((s1 << 16n) & M64);
      s1 = rotl(s1, 37n);
    }
    t.equal(seededBytes(seed, 64).toString('hex'), expected.toString('hex'), `seed ${JSON.stringify(seed)}`);
  }
});

t.test('same seed same stream, different seed different stream', async (t) => {
  t.same(seededBytes('abc', 1000), seededBytes('abc', 1000));
  t.notSame(seededBytes('abc', 32), seededBytes('abd', 32));
  t.same(seededBytes('abc', 10), seededBytes('abc', 4096).subarray(0, 10), 'shorter output is a prefix');
});

t.test('derived draws stay in range and are unbiased enough', async (t) => {
  const rng = rngFromSeed('range');
  const counts = [0, 0, 0, 0, 0, 0];
  for (let i = 0; i < 60_000; i++) {
    const v = rng.intBetween(1, 6);
    if (v < 1 || v > 6) t.fail(`out of range: ${v}`);
    counts[v - 1]!++;
  }
  for (const c of counts) t.ok(c > 9000 && c < 11000, `bucket count ${c} near 10000`);
  for (let i = 0; i < 1000; i++) {
    const f = rng.nextFloat();
    if (f < 0 || f >= 1) t.fail(`float out of [0,1): ${f}`);
  }
  t.equal(rngFromSeed('x').pick(['only']), 'only');
  t.throws(() => rng.intBetween(5, 4));
  t.throws(() => rng.pick([]));
});

t.test('fresh seeds differ', async (t) => {
  t.not(freshSeed(), freshSeed());
  t.match(freshSeed(), /^[0-9a-f]{16}$/);
});

t.test('the /bytes stream cache returns exactly seededBytes', async (t) => {
  const { bytesForSeed } = await import('../../shared/content/payload/index.js');
  for (const seed of ['42', '', 'x', 'ünï']) {
    for (const n of [1, 3, 256, 4096]) t.same(bytesForSeed(seed, n), seededBytes(seed, n), `${seed}/${n}`);
  }
  for (let i = 0; i < 600; i++) bytesForSeed(`many-${i}`, 4);
  t.same(bytesForSeed('42', 16), seededBytes('42', 16), 'still right after the cache turned over');
});
