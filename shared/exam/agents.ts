// The exam's agents profile (docs/exam.md): an MCP client against a session
// that expires (docs/agent.md, mode session-expired) and an LLM client
// against Anthropic's 529 overloaded_error with Retry-After (docs/llm.md).
// What is graded is what the recorder sees: statuses, times, and whether a
// request carried an Mcp-Session-Id (never its value).
import { fail, pass, requests, retryGrade, seconds, type StepDef } from './grading.js';
import type { StepEntry } from './recorder.js';

/** Requests an MCP session takes (its own and the initialized notification's included) before the chaos server says 404. */
const MCP_EXPIRES_AFTER = 3;

/** The 529's Retry-After (docs/llm.md: `overloaded` says 1 s). */
const OVERLOADED_RETRY_AFTER_MS = 1000;

function mcpSessionExpired(entries: readonly StepEntry[]): StepEntry[] | string {
  const expired = entries.findIndex((e) => e.status === 404 && e.session === true);
  if (expired === -1) {
    return `${requests(entries)}, none refused as expired: keep calling on the session past ${MCP_EXPIRES_AFTER} requests`;
  }
  return entries.slice(expired);
}

export const AGENTS: readonly StepDef[] = [
  {
    name: 'mcp-session-expired',
    host: 'chaos',
    target: `/mcp?mode=session-expired&after=${MCP_EXPIRES_AFTER}`,
    what:
      `connect an MCP client (Streamable HTTP) to it and keep calling (ping, tools/list): after ${MCP_EXPIRES_AFTER} requests on a session ` +
      'every request on it is 404 (the session expired); initialize again and carry on',
    expected: 'after the first 404, a new initialize (a POST without Mcp-Session-Id), then a request on the new session answered',
    why: 'The MCP transport says a 404 to a request with a session id means the session is gone and the client must initialize a new one; a client that does not stays dead until restarted',
    fix: 'on HTTP 404 to a request carrying Mcp-Session-Id, drop the session, send initialize again, then retry the request',
    grade: (entries) => {
      const after = mcpSessionExpired(entries);
      if (typeof after === 'string') return fail(after);
      const [refused, ...later] = after as [StepEntry, ...StepEntry[]];
      const reinit = later.findIndex((e) => e.method === 'POST' && e.session !== true);
      if (reinit === -1) {
        const retried = later.filter((e) => e.session === true).length;
        return fail(`404 for the expired session, then ${retried} more request${retried === 1 ? '' : 's'} on it and no new initialize`);
      }
      const init = later[reinit] as StepEntry;
      const goOn = later.slice(reinit + 1).find((e) => e.session === true && e.status >= 200 && e.status < 300);
      const wait = seconds(init.at - (refused.at + refused.ms));
      if (goOn === undefined) return fail(`initialized again ${wait} after the 404, but nothing was answered on the new session`);
      return pass(`404 for the expired session; initialized again ${wait} later and carried on (${goOn.method} answered ${goOn.status})`);
    },
  },
  {
    name: 'llm-529-retry-after',
    host: 'chaos',
    target: '/llm/v1/messages?mode=overloaded',
    what:
      'send an Anthropic Messages request (POST JSON; an SDK: base URL `…/llm`, the query as its default query) to it: every answer is 529 overloaded_error ' +
      'with retry-after: 1; retry after at least that long, and give up after a few',
    expected: 'at least one retry, each at least 1 s after the previous 529, at most 4 requests in all',
    why: '529 means the API is overloaded for everyone: retrying at once adds to the overload, retrying for ever never ends',
    fix: 'retry 529 (and 429) with backoff no shorter than retry-after, a few times at most, then surface the error',
    grade: (entries) => {
      if (entries.length === 1) return fail(`${requests(entries)}: no retry after the 529 (overload is transient: retry after retry-after)`);
      return retryGrade(entries, OVERLOADED_RETRY_AFTER_MS, 4, false);
    },
  },
];
