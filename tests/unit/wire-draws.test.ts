// The seeded draws of /jitter and /weighted-status as pure functions: in their
// bounds for every seed, shaped as documented, and the codes grammar's rules.
import t from 'tap';
import { JITTER_DISTS, JITTER_MAX_MS, jitterDraw } from '../../shared/content/latency.js';
import { parseWeightedCodes, weightedDraw } from '../../shared/content/status.js';

const SEEDS = Array.from({ length: 4000 }, (_, i) => `draw-${i}`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

t.test('jitter: whole milliseconds in 0–15000 for every distribution, extremes included', async (t) => {
  for (const dist of JITTER_DISTS) {
    for (const [ms, spread] of [[0, 0], [0, 15_000], [15_000, 15_000], [15_000, 0], [500, 200]] as const) {
      const draws = SEEDS.slice(0, 500).map((seed) => jitterDraw(dist, ms, spread, seed));
      t.ok(draws.every((d) => Number.isInteger(d) && d >= 0 && d <= JITTER_MAX_MS), `${dist} ms=${ms} spread=${spread}: in bounds`);
    }
    t.equal(jitterDraw(dist, 700, 0, 'any'), 700, `${dist}: no spread, no jitter`);
  }
});

t.test('jitter: shaped as documented', async (t) => {
  const uniform = SEEDS.map((s) => jitterDraw('uniform', 1000, 300, s));
  t.ok(Math.min(...uniform) >= 700 && Math.max(...uniform) <= 1300, 'uniform: within ms ± spread');
  t.ok(Math.min(...uniform) < 720 && Math.max(...uniform) > 1280, 'uniform: reaching both ends');
  const normal = SEEDS.map((s) => jitterDraw('normal', 5000, 500, s));
  t.ok(Math.abs(mean(normal) - 5000) < 40, `normal: mean ms (${mean(normal).toFixed(0)})`);
  const sd = Math.sqrt(mean(normal.map((x) => (x - 5000) ** 2)));
  t.ok(Math.abs(sd - 500) < 40, `normal: standard deviation spread (${sd.toFixed(0)})`);
  const lognormal = SEEDS.map((s) => jitterDraw('lognormal', 1000, 500, s));
  t.ok(Math.abs(median(lognormal) - 1000) < 60, `lognormal: median ms (${median(lognormal)})`);
  t.ok(mean(lognormal) > median(lognormal), 'lognormal: skewed right');
  t.equal(jitterDraw('normal', 300, 100, 'same'), jitterDraw('normal', 300, 100, 'same'), 'a pure function of the seed');
});

t.test('weighted: probability weight / total', async (t) => {
  const codes = [{ code: 200, weight: 0.9 }, { code: 500, weight: 0.1 }];
  const fails = SEEDS.filter((s) => weightedDraw(codes, s) === 500).length;
  t.ok(fails > 320 && fails < 480, `about 10% 500 (${fails} of ${SEEDS.length})`);
  const zero = [{ code: 201, weight: 0 }, { code: 202, weight: 2 }, { code: 203, weight: 0 }];
  t.ok(SEEDS.every((s) => weightedDraw(zero, s) === 202), 'a zero weight is never drawn, first or last');
});

t.test('weighted: the codes grammar', async (t) => {
  t.same(parseWeightedCodes('200:0.9,500:.1'), { ok: true, value: [{ code: 200, weight: 0.9 }, { code: 500, weight: 0.1 }] });
  t.same(parseWeightedCodes('100:1,599:2.'), { ok: true, value: [{ code: 100, weight: 1 }, { code: 599, weight: 2 }] });
  for (const [raw, reason] of [
    ['101:1', /101/],
    [Array.from({ length: 21 }, () => '200:1').join(','), /21 entries; at most 20/],
    ['200:0', /adding up to 0/],
    ['200:-1', /not CODE:WEIGHT/],
    ['2000:1', /not CODE:WEIGHT/],
    ['099:1', /outside 100–599/],
    ['600:1', /outside 100–599/],
    ['200:1e3', /not CODE:WEIGHT/],
    ['', /not CODE:WEIGHT/],
  ] as const) {
    const outcome = parseWeightedCodes(raw);
    t.notOk(outcome.ok, `${raw.slice(0, 20)}: refused`);
    if (!outcome.ok) t.match(outcome.reason, reason);
  }
});
