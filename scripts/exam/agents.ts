// Takes the client exam's agents profile (docs/exam.md) with the official
// SDKs as an agent would use them, defaults included, and prints the graded
// Markdown table: @modelcontextprotocol/sdk's Client over
// StreamableHTTPClientTransport (connect, then pings, as a long-lived agent
// keeps calling its server) and @anthropic-ai/sdk's messages.create (its
// default retries). The runner adds no recovery of its own: what the SDKs do
// about an expired session or a 529 is what is graded.
//   node dist/scripts/exam/agents.js [profile] [hub URL]   (default: agents, http://localhost:8082)
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { takeOwnExam, type Step } from './node-steps.js';

/** Pings the server a few times after connecting; every failure is swallowed, as the service records what happened. */
async function mcpPings(url: string): Promise<void> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'chaos-exam', version: '1.0.0' }, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: 5000 });
    for (let ping = 0; ping < 5; ping++) await client.ping({ timeout: 5000 }).catch(() => undefined);
  } catch {
    /* connect failed: recorded as such */
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** One Messages call with the SDK's defaults (maxRetries 2): the step URL's query is the client's default query. */
async function messages(url: string): Promise<void> {
  const target = new URL(url);
  const client = new Anthropic({
    apiKey: 'exam-key',
    baseURL: `${target.origin}/llm`,
    defaultQuery: Object.fromEntries(target.searchParams),
    logLevel: 'off',
  });
  await client.messages.create({ model: 'exam', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }).catch(() => undefined);
}

async function take({ name, url }: Step): Promise<void> {
  switch (name) {
    case 'mcp-session-expired':
      return mcpPings(url);
    case 'llm-529-retry-after':
      return messages(url);
    default:
      process.stderr.write(`no SDK call for step ${name}\n`);
  }
}

await takeOwnExam('agents', 'the MCP and Anthropic SDKs', take);
