// The client scorecard's exam tables (docs/clients.md): every runner of
// scripts/exam/run.ts takes every profile it takes, on a stack of its own (the
// exam tests' stack: one chaos and one control process sharing a store, the
// TLS chaos listener beside them, the real per-IP limit off), and each profile
// is one table: a row per client that takes it, a column per step, a cell the
// verdict and what the service observed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROFILE_NAMES, PROFILES } from '../../shared/exam/profiles.js';
import { startExamStack } from '../../tests/helpers/exam-stack.js';
import { profilesOf, RUN_BOUND_MS, RUNNERS, takeExam, withheld, type ExamRunner } from '../exam/run.js';
import { escapeCell, splitRow, unescapeCell } from './markdown.js';
import { inPool } from './pool.js';

export const EXAM_HEADING = 'The client exam: what each client does with each step';

/** Runs at once: each is mostly waiting on a lie, but a busy machine shifts the times the grades read. */
const WIDTH = 6;

export interface ExamProfileTable {
  readonly profile: string;
  readonly steps: readonly string[];
  /** A row per runner (its id), a cell per step. */
  readonly rows: readonly { readonly runner: string; readonly cells: readonly string[] }[];
}

export interface ExamTables {
  readonly versions: Readonly<Record<string, string>>;
  readonly profiles: readonly ExamProfileTable[];
}

const NOT_IN_EXAM = 'not run: the exam left it out (no TLS host for the https step)';

/** The runners that take `profile`, in RUNNERS' order. */
export const runnersOf = (profile: string, runners: readonly ExamRunner[] = RUNNERS): readonly ExamRunner[] => runners.filter((r) => profilesOf(r).includes(profile));

const verdictText = (verdict: string): string => (verdict === 'fail' ? 'FAIL' : verdict);

/** Every runner (or those given) through every profile it takes (or those given). */
export async function runExamTables(options: { runners?: readonly ExamRunner[]; profiles?: readonly string[]; log?: (line: string) => void } = {}): Promise<ExamTables> {
  const runners = options.runners ?? RUNNERS;
  const profiles = (options.profiles ?? PROFILE_NAMES).filter((profile) => runnersOf(profile, runners).length > 0);
  const teardowns: (() => unknown)[] = [];
  try {
    const stack = await startExamStack({ teardown: (fn) => teardowns.push(fn) }, undefined, { EXAM_MAX_OPEN_PER_IP: '100' }, { tls: true });
    // The published root, as a user saves it from {hub_url}/tls/root.pem: every runner is given it (EXAM_CA_FILE).
    const dir = mkdtempSync(join(tmpdir(), 'exam-table-'));
    teardowns.push(() => rmSync(dir, { recursive: true, force: true }));
    const caFile = join(dir, 'root.pem');
    writeFileSync(caFile, stack.tlsRoot as string);
    const versions: Record<string, string> = {};
    for (const runner of runners) versions[runner.id] = await runner.version();
    const cells = profiles.flatMap((profile) => runnersOf(profile, runners).map((runner) => ({ runner, profile })));
    const runs = await inPool(cells, WIDTH, async ({ runner, profile }) => {
      options.log?.(`exam ${profile} with ${runner.id}…`);
      return takeExam(runner, profile, stack.hub, { caFile });
    });
    return {
      versions,
      profiles: profiles.map((profile) => {
        const steps = (PROFILES[profile] ?? []).map((s) => s.name);
        const rows = runs
          .filter((run) => run.profile === profile)
          .map((run) => {
            const runner = runners.find((r) => r.id === run.runner) as ExamRunner;
            return {
              runner: run.runner,
              cells: steps.map((name) => {
                const step = run.report.steps.find((s) => s.name === name);
                if (step === undefined) return NOT_IN_EXAM;
                const stopped = run.killed ? ` (the client was stopped at ${RUN_BOUND_MS / 1000} s)` : '';
                if (step.verdict !== 'not-run') return `${verdictText(step.verdict)}: ${step.observed}${stopped}`;
                const why = withheld(runner, name, caFile);
                return why === undefined ? `not run${stopped}` : `not run: ${why}`;
              }),
            };
          });
        return { profile, steps, rows };
      }),
    };
  } finally {
    for (const teardown of teardowns.reverse()) await teardown();
  }
}

const runnerName = (id: string): string => RUNNERS.find((r) => r.id === id)?.name ?? id;

export function renderExamTables(tables: ExamTables): string[] {
  return [
    `## ${EXAM_HEADING}`,
    '',
    [
      'Each runner of `scripts/exam/` ([The client exam](exam.md#runners)) takes every profile with its client,',
      'used as an application uses it: the client\'s defaults, plus only what a step asks of the caller (a 2 s',
      'deadline in the client\'s own terms, a second call, a POST body, an `Authorization` header, `Last-Event-ID`',
      'on a reconnection where the client has no event-stream support). The exams run on one chaos and one',
      'control process sharing a store, the real per-IP limit off, several runners at once; a cell is the verdict',
      'and what the service observed. The TLS chaos listener serves `https-downgrade`: every runner is given',
      'its published root (`EXAM_CA_FILE`) and reaches `good.tls.localhost` on the loopback (docs/exam.md says',
      'how, per client). The `agents` profile is taken by the SDK runner, the official SDKs as an agent uses them.',
    ].join('\n'),
    '',
    '| client | version | runner | run as |',
    '|---|---|---|---|',
    ...RUNNERS.filter((r) => tables.versions[r.id] !== undefined).map(
      (r) => `| ${r.name} | ${escapeCell(tables.versions[r.id] as string)} | \`${r.id}\` | ${r.runAs} |`,
    ),
    '',
    ...tables.profiles.flatMap((table) => [
      `### Exam: ${table.profile}`,
      '',
      `| client | ${table.steps.map((s) => `\`${s}\``).join(' | ')} |`,
      `|---|${table.steps.map(() => '---|').join('')}`,
      ...table.rows.map((row) => `| ${runnerName(row.runner)} | ${row.cells.map(escapeCell).join(' | ')} |`),
      '',
    ]),
  ];
}

/** Reads the exam section back from the whole page (undefined when the page has none). */
export function parseExamTables(markdown: string): ExamTables | undefined {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${EXAM_HEADING}`);
  if (start === -1) return undefined;
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const byName = new Map(RUNNERS.map((r) => [r.name, r.id]));
  const versions: Record<string, string> = {};
  const profiles: { profile: string; steps: string[]; rows: { runner: string; cells: string[] }[] }[] = [];
  let current: (typeof profiles)[number] | undefined;
  for (const line of lines.slice(start + 1, end === -1 ? undefined : end)) {
    const profile = /^### Exam: (\S+)$/.exec(line)?.[1];
    if (profile !== undefined) {
      current = { profile, steps: [], rows: [] };
      profiles.push(current);
      continue;
    }
    if (!line.startsWith('| ') || line.startsWith('|---')) continue;
    const cells = splitRow(line);
    if (cells[0] === 'client') {
      if (current) current.steps = cells.slice(1).map((c) => c.replace(/^`|`$/g, ''));
      continue;
    }
    const id = byName.get(cells[0] ?? '') ?? cells[0] ?? '';
    if (current) current.rows.push({ runner: id, cells: cells.slice(1).map(unescapeCell) });
    else versions[id] = unescapeCell(cells[1] ?? '');
  }
  return { versions, profiles };
}
