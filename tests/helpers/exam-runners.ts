// Runs exam runners (scripts/exam/run.ts) with their real clients against the
// exam tests' stack (one chaos and one control process sharing a store, the
// TLS chaos listener beside them, its root given as EXAM_CA_FILE), all at
// once, each its own exam, and checks the steps whose outcome is certain for
// the client. A missing client fails its test, naming the package.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { examRunner, takeExam, type ExamRun } from '../../scripts/exam/run.js';
import { startExamStack } from './exam-stack.js';

export type ExpectedVerdict = 'pass' | 'fail' | 'not-run';

export interface RunnerCase {
  readonly runner: string;
  readonly profile: string;
  /** Step → verdict, for the steps whose outcome does not depend on the machine's load. */
  readonly expected: Readonly<Record<string, ExpectedVerdict>>;
  /** What the client does that makes them certain, in a line. */
  readonly because: string;
}

/** Every redirect step passed: the client follows by the book, drops Authorization on another host, and sends none over http after https. */
export const FOLLOWS_ALL = {
  'redirect-302': 'pass', 'redirect-303': 'pass', 'redirect-307': 'pass', 'redirect-308': 'pass', 'redirect-loop': 'pass', 'cross-host-authorization': 'pass',
  'https-downgrade': 'pass',
} as const;

/** A client without a cache of its own: every request reaches the server unconditional. */
export const NO_CACHE = { etag: 'fail', 'last-modified': 'fail', 'no-store': 'pass', vary: 'pass' } as const;

type Outcome = { readonly run: ExamRun } | { readonly error: Error };

/** Starts every case at once on one stack, then one test per case. */
export async function testRunners(t: Test, cases: readonly RunnerCase[]): Promise<void> {
  const stack = await startExamStack(t, undefined, { EXAM_MAX_OPEN_PER_IP: '100' }, { tls: true });
  const dir = mkdtempSync(join(tmpdir(), 'exam-runners-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const caFile = join(dir, 'root.pem');
  writeFileSync(caFile, stack.tlsRoot as string);
  const runs = cases.map(async (c): Promise<Outcome> => {
    try {
      const runner = examRunner(c.runner);
      await runner.version(); // throws naming the package when the client is missing
      return { run: await takeExam(runner, c.profile, stack.hub, { caFile }) };
    } catch (error) {
      return { error: error as Error };
    }
  });
  for (const [i, c] of cases.entries()) {
    t.test(`${c.runner}, ${c.profile}: ${c.because}`, async (t) => {
      const outcome = await (runs[i] as Promise<Outcome>);
      if ('error' in outcome) {
        t.fail(outcome.error.message);
        return;
      }
      const { report, killed, stderr } = outcome.run;
      t.notOk(killed, 'the client finished within the bound');
      const seen = new Map(report.steps.map((s) => [s.name, s]));
      for (const [name, verdict] of Object.entries(c.expected)) {
        const step = seen.get(name);
        t.equal(step?.verdict, verdict, `${name}: ${step?.observed ?? 'not in the profile'}${stderr.trim() ? ` (stderr: ${stderr.trim().slice(0, 200)})` : ''}`);
      }
    });
  }
}
