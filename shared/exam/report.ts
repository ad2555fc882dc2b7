// Grading an exam's log into its report (docs/exam.md), and the report's
// three renderings: JSON, the hub-styled HTML page, a Markdown table.
import { hostNav, page } from '../catalog/catalog-page.js';
import type { Config, PublicUrls } from '../config/config.js';
import { escapeHtml } from '../primitives/html.js';
import { PROFILES, type StepDef, type Verdict } from './profiles.js';
import type { StepEntry } from './recorder.js';

/** What an exam's log head holds (no id: the key is its digest). */
export interface ExamHead {
  readonly profile: string;
  readonly created_at: string;
  readonly expires_at: string;
}

export interface StepReport {
  readonly name: string;
  readonly url: string;
  readonly verdict: Verdict;
  readonly observed: string;
  readonly expected: string;
  readonly why_it_matters: string;
  readonly fix: string;
  /** Requests recorded under the step. */
  readonly requests: number;
}

export interface ExamReport {
  readonly id: string;
  readonly profile: string;
  readonly created_at: string;
  readonly expires_at: string;
  /** Passed steps as a percentage of all steps (not-run counts as not passed). */
  readonly score: number;
  readonly passed: number;
  readonly failed: number;
  readonly not_run: number;
  readonly steps: readonly StepReport[];
  readonly report_url: string;
}

/** The chaos host's TLS `good` host (docs/tls.md), or undefined where TLS is off (no TLS_DIR). */
function tlsGoodUrl(config: Config): string | undefined {
  const { dir, base, publicPort } = config.tls;
  return dir === undefined ? undefined : `https://good.${base}${publicPort === 443 ? '' : `:${publicPort}`}`;
}

/** The steps of `profile` here, and a note for each left out: a `tls` step needs the chaos host's TLS listener. */
export function stepsOf(profile: string, config: Config): { readonly steps: readonly StepDef[]; readonly notes: readonly string[] } {
  const all = PROFILES[profile] ?? [];
  if (tlsGoodUrl(config) !== undefined) return { steps: all, notes: [] };
  const left = all.filter((step) => step.host === 'tls');
  return {
    steps: all.filter((step) => step.host !== 'tls'),
    notes: left.map((step) => `${step.name} is left out: this deployment serves no TLS host (TLS_DIR is unset; docs/tls.md)`),
  };
}

/** The URL a step is taken at: an ordinary chaos, control or TLS chaos URL carrying `exam=<id>.<step>`. */
export function stepUrl(config: Config, id: string, step: StepDef): string {
  const target = step.target.replaceAll('{id}', id);
  const { urls } = config;
  const base = step.host === 'chaos' ? urls.base : step.host === 'control' ? urls.control : (tlsGoodUrl(config) ?? urls.base);
  return `${base}${target}${target.includes('?') ? '&' : '?'}exam=${id}.${step.name}`;
}

export function reportUrl(urls: PublicUrls, id: string): string {
  return `${urls.hub}/exam/${id}`;
}

/** Entries that parse, by step, each list in time order; anything else in the log is skipped. */
function byStep(entries: readonly string[]): Map<string, StepEntry[]> {
  const steps = new Map<string, StepEntry[]>();
  for (const raw of entries) {
    let entry: StepEntry;
    try {
      entry = JSON.parse(raw) as StepEntry;
    } catch {
      continue;
    }
    if (typeof entry.step !== 'string' || typeof entry.at !== 'number') continue;
    const list = steps.get(entry.step) ?? [];
    list.push(entry);
    steps.set(entry.step, list);
  }
  for (const list of steps.values()) list.sort((a, b) => a.at - b.at);
  return steps;
}

/** Every request of a step answered by the real per-IP limit (only rate-limit-429's own 429s are chaos): nothing to grade. */
function refusedByLimit(step: StepDef, entries: readonly StepEntry[]): boolean {
  return step.name !== 'rate-limit-429' && entries.every((e) => e.status === 429);
}

export function gradeExam(config: Config, id: string, head: ExamHead, entries: readonly string[]): ExamReport {
  const recorded = byStep(entries);
  const steps = stepsOf(head.profile, config).steps.map((step): StepReport => {
    const list = recorded.get(step.name) ?? [];
    const graded =
      list.length === 0
        ? { verdict: 'not-run' as const, observed: 'no request recorded for this step yet' }
        : refusedByLimit(step, list)
          ? { verdict: 'fail' as const, observed: `${list.length} request(s), all refused by the service's real per-IP limit (429): wait a minute and take the step again` }
          : step.grade(list);
    return {
      name: step.name,
      url: stepUrl(config, id, step),
      verdict: graded.verdict,
      observed: graded.observed,
      expected: step.expected,
      why_it_matters: step.why,
      fix: step.fix,
      requests: list.length,
    };
  });
  const passed = steps.filter((s) => s.verdict === 'pass').length;
  const failed = steps.filter((s) => s.verdict === 'fail').length;
  return {
    id,
    profile: head.profile,
    created_at: head.created_at,
    expires_at: head.expires_at,
    score: steps.length === 0 ? 0 : Math.round((passed / steps.length) * 100),
    passed,
    failed,
    not_run: steps.length - passed - failed,
    steps,
    report_url: reportUrl(config.urls, id),
  };
}

/** A Markdown table cell: pipes escaped, one line. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

export function reportMarkdown(report: ExamReport): string {
  const rows = report.steps.map((s) => `| ${cell(s.name)} | ${s.verdict} | ${cell(s.observed)} | ${cell(s.expected)} | ${cell(s.verdict === 'fail' ? s.fix : '')} |`);
  return [
    `## Client exam: ${report.profile} (${report.passed}/${report.steps.length} passed, score ${report.score})`,
    '',
    '| step | verdict | observed | expected | fix |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `Report: ${report.report_url} (kept until ${report.expires_at})`,
    '',
  ].join('\n');
}

const VERDICT_LABEL: Readonly<Record<Verdict, string>> = { pass: 'pass', fail: 'FAIL', 'not-run': 'not run' };

export function reportHtml(report: ExamReport, urls: PublicUrls): string {
  const header =
    `<p class="brand">Chaos Endpoint Service</p>${hostNav(urls, 'hub')}\n` +
    `<h1>Client exam: ${escapeHtml(report.profile)} <small>${report.passed} of ${report.steps.length} passed</small></h1>\n` +
    `<p class="banner">Score ${report.score}: ${report.passed} passed, ${report.failed} failed, ${report.not_run} not run.</p>\n` +
    `<p class="about">Kept until ${escapeHtml(report.expires_at)}. As JSON: <code>${escapeHtml(`curl -H 'Accept: application/json' ${report.report_url}`)}</code> · ` +
    `as Markdown: <a href="${escapeHtml(`${report.report_url}.md`)}">${escapeHtml(`/exam/${report.id}.md`)}</a></p>`;
  const steps = report.steps.map(
    (s) =>
      `<article class="ep" id="step-${escapeHtml(s.name)}" data-verdict="${s.verdict}">\n` +
      `<h3>${escapeHtml(s.name)} <span class="badge verdict-${s.verdict}">${VERDICT_LABEL[s.verdict]}</span></h3>\n` +
      `<p class="sum"><strong>Observed:</strong> ${escapeHtml(s.observed)}</p>\n` +
      `<p><strong>Expected:</strong> ${escapeHtml(s.expected)}</p>\n` +
      (s.verdict === 'fail' ? `<p><strong>Fix:</strong> ${escapeHtml(s.fix)}</p>\n` : '') +
      `<p class="about">${escapeHtml(s.why_it_matters)}</p>\n` +
      `<p><code>${escapeHtml(s.url)}</code></p>\n</article>`,
  );
  const content = `<section class="cat" id="steps" data-category="exam">\n<h2>Steps <span class="n" data-total="${report.steps.length}">${report.steps.length}</span></h2>\n${steps.join('\n')}\n</section>`;
  return page(`Client exam ${report.profile} — Chaos Endpoint Service`, header, content, 'Graded from what the service recorded of each step; see docs/exam.md.');
}
