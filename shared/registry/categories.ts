// The docs page of each host's categories, the one place that says it: a chaos
// category's page is named after it (docs/<category>.md); a control twin is
// documented beside its chaotic twin (scripts/readme-tables.ts docFileOf), so
// the control entries place only the twinless endpoints; the bots families
// share one page with the control host's well-formed files. The README tables
// and the docs test read it from here.
import type { HostName } from '../config/config.js';
import { CATEGORIES, type Category } from './registry.js';

/** The page named after a category. */
const pageOf = (category: string): string => `docs/${category}.md`;

export const CATEGORY_DOCS: { readonly [H in HostName]: Readonly<Record<Category<H>, string>> } = {
  chaos: Object.fromEntries(CATEGORIES.chaos.map((category) => [category, pageOf(category)])) as Record<Category<'chaos'>, string>,
  control: {
    latency: pageOf('latency'), status: pageOf('status'), payload: pageOf('payload'), headers: pageOf('headers'),
    'rate-limiting': pageOf('rate-limiting'), method: pageOf('method'),
    // The twinless OAuth, SKILL.md and echo endpoints are what the discovery documents name.
    auth: pageOf('discovery'), agent: pageOf('discovery'),
    'crawler-files': pageOf('crawler-files'), infinite: pageOf('infinite'), websocket: pageOf('websocket'), http2: pageOf('http2'),
  },
  bots: Object.fromEntries(CATEGORIES.bots.map((category) => [category, pageOf('crawler-files')])) as Record<Category<'bots'>, string>,
};

/** The docs page of a host's category; undefined for a category the host does not have. */
export function categoryDoc(host: HostName, category: string): string | undefined {
  return (CATEGORY_DOCS[host] as Readonly<Record<string, string>>)[category];
}
