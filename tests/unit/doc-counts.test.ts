// Every count of endpoints, categories or hosts that README.md and docs/*.md
// state by hand ("Five chaos endpoints … in category `latency`", "18 files in
// 4 categories", "the control host's 10 categories", "all three hosts") is
// the registries' count. A count the checker cannot tie to a host and a
// category fails too: say which, or name the endpoints instead of counting.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { handWritten, registries, repoPath } from '../../scripts/readme-tables.js';
import type { HostName } from '../../shared/config/config.js';

interface HostCounts {
  readonly endpoints: number;
  readonly categories: ReadonlyMap<string, number>;
}

type Counts = ReadonlyMap<HostName, HostCounts>;

function registryCounts(): Counts {
  return new Map(registries().map((r) => {
    const categories = new Map<string, number>();
    for (const e of r.endpoints) categories.set(e.category, (categories.get(e.category) ?? 0) + 1);
    return [r.host, { endpoints: r.endpoints.length, categories }] as const;
  }));
}

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
  'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];
// "one of the categories" counts nothing.
const NUMBER = `(\\d+|${WORDS.join('|')})(?! of\\b)`;

function value(number: string): number {
  const word = WORDS.indexOf(number.toLowerCase());
  return word === -1 ? Number(number) : word;
}

/** Paragraphs, headings and table rows of the hand-written text, code blocks and inline code paths left out. */
function units(markdown: string): string[] {
  const out: string[] = [];
  let paragraph: string[] = [];
  let fence = false;
  const flush = (): void => {
    if (paragraph.length) out.push(paragraph.join(' '));
    paragraph = [];
  };
  for (const line of handWritten(markdown).split('\n')) {
    if (line.startsWith('```')) {
      fence = !fence;
      flush();
      continue;
    }
    if (fence) continue;
    if (line.trim() === '' || line.startsWith('#') || line.startsWith('|') || /^\s*[*-] /.test(line)) flush();
    if (line.startsWith('#') || line.startsWith('|')) out.push(line);
    else if (line.trim() !== '') paragraph.push(line.trim());
  }
  flush();
  return out;
}

const HOST_RE = /\b(chaos|control|bots) host/gi;

/** The host a claim at `at` in `unit` is about: "N chaos endpoints", "on the chaos host" after it, or the last host named before it. */
function hostOf(unit: string, at: number, claim: string): HostName | undefined {
  const inClaim = /\b(chaos|control|bots) endpoints\b/i.exec(claim)?.[1];
  const sentenceEnd = unit.indexOf('. ', at);
  const after = unit.slice(at, sentenceEnd === -1 ? undefined : sentenceEnd);
  const onThe = /\bon the (chaos|control|bots) host/i.exec(after)?.[1];
  const before = [...unit.slice(0, at).matchAll(HOST_RE)].at(-1)?.[1];
  return (inClaim ?? onThe ?? before)?.toLowerCase() as HostName | undefined;
}

/** What is wrong with the counts a page states; empty when each is the registries'. */
export function countProblems(markdown: string, counts: Counts): string[] {
  const problems: string[] = [];
  const hosts = counts.size;
  for (const unit of units(markdown)) {
    const taken = new Set<number>();
    const check = (at: number, claim: string, stated: number, actual: number | undefined, what: string): void => {
      taken.add(at);
      if (actual === undefined) problems.push(`"${claim}": ${what}`);
      else if (stated !== actual) problems.push(`"${claim}": the registries say ${actual} (${what})`);
    };
    // "18 endpoints in 4 categories", "18 chaotic files in 4 categories": a host's totals.
    for (const m of unit.matchAll(new RegExp(`\\b${NUMBER} (?:[\\w-]+ ){0,2}?(?:endpoints|files) in ${NUMBER} categories`, 'gi'))) {
      const host = hostOf(unit, m.index, m[0]);
      const c = host && counts.get(host);
      check(m.index, m[0], value(m[1] as string), c ? c.endpoints : undefined, host ? `endpoints on the ${host} host` : 'which host?');
      const at = m.index + m[0].lastIndexOf(m[2] as string);
      check(at, m[0], value(m[2] as string), c ? c.categories.size : undefined, host ? `categories on the ${host} host` : 'which host?');
    }
    // "the control host's 10 categories"
    for (const m of unit.matchAll(new RegExp(`\\b${NUMBER} (?:[\\w-]+ ){0,2}?categories\\b`, 'gi'))) {
      if (taken.has(m.index)) continue;
      const host = hostOf(unit, m.index, m[0]);
      check(m.index, m[0], value(m[1] as string), host && counts.get(host)?.categories.size, host ? `categories on the ${host} host` : 'which host?');
    }
    // "Five chaos endpoints … in category `latency`", "18 control endpoints, all in … category `crawler-files`"
    for (const m of unit.matchAll(new RegExp(`\\b${NUMBER} (?:[\\w-]+ ){0,2}?endpoints\\b`, 'gi'))) {
      if (taken.has(m.index)) continue;
      const host = hostOf(unit, m.index, m[0]);
      const category = /\bcategory `([\w-]+)`/.exec(unit.slice(m.index))?.[1];
      const actual = host && category ? counts.get(host)?.categories.get(category) ?? 0 : undefined;
      check(m.index, m[0], value(m[1] as string), actual, host && category ? `${host} category ${category}` : 'say which host and category, or name the endpoints');
    }
    // "Categories: crawler-files 4, app-linking 4, …"
    for (const list of unit.matchAll(/\bCategories: ((?:[\w-]+ \d+(?:, | and )?)+)/g)) {
      const host = hostOf(unit, list.index, list[0]);
      for (const pair of list[1]?.matchAll(/([\w-]+) (\d+)/g) ?? []) {
        const actual = host ? counts.get(host)?.categories.get(pair[1] as string) ?? 0 : undefined;
        check(list.index, `${pair[1]} ${pair[2]}`, Number(pair[2]), actual, host ? `${host} category ${pair[1]}` : 'which host?');
      }
    }
    for (const m of unit.matchAll(new RegExp(`\\b${NUMBER} hosts\\b`, 'gi'))) check(m.index, m[0], value(m[1] as string), hosts, 'hosts');
  }
  return problems;
}

const counts = registryCounts();
const pages = ['README.md', ...readdirSync(repoPath('docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

t.test('every count a page states is the registries\'', async (t) => {
  for (const page of pages) t.same(countProblems(readFileSync(repoPath(page), 'utf8'), counts), [], page);
});

t.test('the checker catches a wrong count, and one it cannot tie to a host', async (t) => {
  const bots = counts.get('bots');
  const chaos = counts.get('chaos');
  t.ok(bots && chaos);
  if (!bots || !chaos) return;
  const latency = chaos.categories.get('latency') ?? 0;
  t.same(countProblems(`## Bots host: ${bots.endpoints} chaotic files in ${bots.categories.size} categories`, counts), []);
  t.equal(countProblems(`## Bots host: ${bots.endpoints + 1} chaotic files in ${bots.categories.size} categories`, counts).length, 1);
  t.equal(countProblems(`The bots host serves ${bots.endpoints} files in ${bots.categories.size + 1} categories.`, counts).length, 1);
  t.same(countProblems(`${WORDS[latency]} chaos endpoints that are slow on purpose, in category \`latency\`.`, counts), []);
  t.equal(countProblems(`${WORDS[latency + 1]} chaos endpoints that are slow on purpose, in category \`latency\`.`, counts).length, 1);
  t.same(countProblems(`Ten endpoints on the chaos host, in category \`fault-injection\`.`, counts).length, chaos.categories.get('fault-injection') === 10 ? 0 : 1);
  t.equal(countProblems(`the control host's ${(counts.get('control')?.categories.size ?? 0) + 1} categories`, counts).length, 1);
  t.match(countProblems('Two chaos endpoints that lie about how a body is delivered.', counts), [/say which host and category/]);
  t.equal(countProblems('Categories: crawler-files 4, app-linking 9. The bots host.', counts).length, 2, 'no host before the list');
  t.equal(countProblems('The bots host serves them. Categories: crawler-files 4, app-linking 9.', counts).length, bots.categories.get('crawler-files') === 4 ? 1 : 2);
  t.equal(countProblems('the catalog of all four hosts', counts).length, 1);
  t.same(countProblems('```\n99 endpoints in 99 categories\n```', counts), [], 'code blocks are not claims');
});
