// The client scorecard's exam tables (docs/clients.md): every runner of
// scripts/exam/run.ts takes every profile it takes, on a stack of its own (the
// exam tests' stack: one chaos and one control process sharing a store, the
// real per-IP limit off), and each profile is one table: a row per client, a
// column per step, a cell the verdict and what the service observed.
import { PROFILES } from '../../shared/exam/profiles.js';
import { startExamStack } from '../../tests/helpers/exam-stack.js';
import { RUN_BOUND_MS, RUNNER_PROFILES, RUNNERS, takeExam, type ExamRunner } from '../exam/run.js';
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

const verdictText = (verdict: string): string => (verdict === 'fail' ? 'FAIL' : verdict);

/** Every runner (or those given) through every profile (or those given). */
export async function runExamTables(options: { runners?: readonly ExamRunner[]; profiles?: readonly string[]; log?: (line: string) => void } = {}): Promise<ExamTables> {
  const runners = options.runners ?? RUNNERS;
  const profiles = options.profiles ?? RUNNER_PROFILES;
  const teardowns: (() => unknown)[] = [];
  try {
    const stack = await startExamStack({ teardown: (fn) => teardowns.push(fn) }, undefined, { EXAM_MAX_OPEN_PER_IP: '100' });
    const versions: Record<string, string> = {};
    for (const runner of runners) versions[runner.id] = await runner.version();
    const cells = runners.flatMap((runner) => profiles.map((profile) => ({ runner, profile })));
    const runs = await inPool(cells, WIDTH, async ({ runner, profile }) => {
      options.log?.(`exam ${profile} with ${runner.id}…`);
      return takeExam(runner, profile, stack.hub);
    });
    return {
      versions,
      profiles: profiles.map((profile) => {
        const steps = (PROFILES[profile] ?? []).map((s) => s.name);
        const rows = runs
          .filter((run) => run.profile === profile)
          .map((run) => ({
            runner: run.runner,
            cells: steps.map((name) => {
              const step = run.report.steps.find((s) => s.name === name);
              // The exam leaves https-downgrade out where the stack has no TLS host (as this one has not).
              if (step === undefined) return NOT_IN_EXAM;
              const stopped = run.killed ? ` (the client was stopped at ${RUN_BOUND_MS / 1000} s)` : '';
              return step.verdict === 'not-run' ? `not run${stopped}` : `${verdictText(step.verdict)}: ${step.observed}${stopped}`;
            }),
          }));
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
      'and what the service observed. `https-downgrade` needs the published TLS root (`EXAM_CA_FILE`): without',
      'the TLS host it is not run. The `agents` profile is the SDK runner\'s, not in these tables.',
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
