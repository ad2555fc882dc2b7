// The client scorecard's SDK tables (docs/clients.md): the official MCP SDK
// against every /mcp chaos mode, and the official LLM SDKs (openai on the
// Responses API, @anthropic-ai/sdk on Messages, @google/genai on Gemini)
// against every LLM chaos mode. Each cell is the sentence a scenario of
// scripts/scorecard/sdk-*.ts returns: the scenarios the SDK tests
// (tests/integration/agent/*-sdk.test.ts) run and check, here run again on a
// chaos process of the tests' own making.
import { readFileSync } from 'node:fs';
import { MCP_MODES, MESSAGES_MODES } from '../../shared/content/agent/index.js';
import { startChaos } from '../../tests/helpers/servers.js';
import { repoPath } from '../readme-tables.js';
import { parseMatrix, type MatrixResult, type MatrixSpec } from './markdown.js';
import { ANTHROPIC_SDK_SCENARIOS } from './sdk-anthropic.js';
import { GEMINI_SDK_SCENARIOS } from './sdk-gemini.js';
import { MCP_SDK_SCENARIOS } from './sdk-mcp.js';
import { OPENAI_SDK_SCENARIOS } from './sdk-openai.js';

export const MCP_SDK_SPEC: MatrixSpec = {
  heading: 'MCP SDK: what it does with each MCP chaos mode',
  intro: [[
    'The official TypeScript SDK against each mode of the chaos `/mcp` ([Agent](agent.md#the-chaos-modes)): a',
    '`Client` over `StreamableHTTPClientTransport`, request timeouts of 2.5 s where a request can hang, the call',
    'each mode is about (docs/agent.md names it per mode). Against the control twin it completes a whole session.',
  ].join('\n')],
  clients: [{ id: 'mcp', name: '@modelcontextprotocol/sdk', runAs: '`Client` over `StreamableHTTPClientTransport` (tests/integration/agent/mcp-sdk.test.ts checks the same sentences)' }],
  rowTitle: 'mode',
  extraColumns: [],
};

export const LLM_SDK_SPEC: MatrixSpec = {
  heading: 'LLM SDKs: what each does with each chaos mode',
  intro: [[
    'The official SDKs against the same lies in their own API shape ([LLM APIs](llm.md)): streamed through the',
    'SDK\'s stream helper for the stream modes, a plain call for the refusals (`maxRetries: 2` for the OpenAI and',
    'Anthropic SDKs, 0 elsewhere; the Gen AI SDK with its defaults). Against the control twins every SDK parses',
    'every answer cleanly.',
  ].join('\n')],
  clients: [
    { id: 'openai', name: 'openai (Responses)', runAs: '`responses.stream(...).finalResponse()`, `responses.create` (tests/integration/agent/llm-responses-sdk.test.ts)' },
    { id: 'anthropic', name: '@anthropic-ai/sdk (Messages)', runAs: '`messages.stream(...).finalMessage()`, `messages.create` (tests/integration/agent/llm-messages-sdk.test.ts)' },
    { id: 'gemini', name: '@google/genai (Gemini)', runAs: '`models.generateContentStream`, `models.generateContent` (tests/integration/agent/llm-gemini-sdk.test.ts)' },
  ],
  rowTitle: 'mode',
  extraColumns: [],
};

export interface SdkTables {
  readonly mcp: MatrixResult;
  readonly llm: MatrixResult;
}

const npmVersion = (pkg: string): string => (JSON.parse(readFileSync(repoPath(`node_modules/${pkg}/package.json`), 'utf8')) as { version: string }).version;

/** Every mode with every SDK, on one chaos process; each SDK's modes in order (as its test runs them), the SDKs at once. */
export async function runSdkTables(): Promise<SdkTables> {
  const teardowns: (() => unknown)[] = [];
  try {
    const { port } = await startChaos({ teardown: (fn) => teardowns.push(fn) });
    const inOrder = async <M extends string>(modes: readonly M[], run: (mode: M) => Promise<string>): Promise<string[]> => {
      const cells: string[] = [];
      for (const mode of modes) cells.push(await run(mode));
      return cells;
    };
    const [mcp, openai, anthropic, gemini] = await Promise.all([
      inOrder(MCP_MODES, (mode) => MCP_SDK_SCENARIOS[mode](`http://127.0.0.1:${port}/mcp?mode=${mode}`)),
      inOrder(MESSAGES_MODES, (mode) => OPENAI_SDK_SCENARIOS[mode](port)),
      inOrder(MESSAGES_MODES, (mode) => ANTHROPIC_SDK_SCENARIOS[mode](port)),
      inOrder(MESSAGES_MODES, (mode) => GEMINI_SDK_SCENARIOS[mode](port)),
    ]);
    return {
      mcp: { versions: { mcp: npmVersion('@modelcontextprotocol/sdk') }, rows: MCP_MODES.map((mode, i) => ({ id: mode, cells: [mcp[i] as string] })) },
      llm: {
        versions: { openai: npmVersion('openai'), anthropic: npmVersion('@anthropic-ai/sdk'), gemini: npmVersion('@google/genai') },
        rows: MESSAGES_MODES.map((mode, i) => ({ id: mode, cells: [openai[i] as string, anthropic[i] as string, gemini[i] as string] })),
      },
    };
  } finally {
    for (const teardown of teardowns.reverse()) await teardown();
  }
}

/** What docs/clients.md publishes for one SDK column (`mcp`, `openai`, `anthropic`, `gemini`): mode → sentence. */
export function publishedSdkOutcomes(client: string): Map<string, string> {
  const spec = client === 'mcp' ? MCP_SDK_SPEC : LLM_SDK_SPEC;
  const column = spec.clients.findIndex((c) => c.id === client);
  const table = parseMatrix(spec, readFileSync(repoPath('docs/clients.md'), 'utf8'));
  return new Map((table?.rows ?? []).map((row) => [row.id, row.cells[column] ?? '']));
}
