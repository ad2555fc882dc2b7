// docs/clients.md is the client scorecard's output (scripts/client-scorecard.ts):
// every lie the script knows, in its order, one row per client, and nothing
// the script would render differently. The clients themselves run in
// tests/integration/clients/client-scorecard.test.ts (curl only: all of them take minutes).
import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  checkLies, CLIENT_IDS, CLIENTS, clientsDocPath, CONTROL_ROW, escapeCell, GENERATED, LIES, parseScorecard, renderScorecard, unescapeCell,
} from '../../scripts/client-scorecard.js';
import { RUNNERS } from '../../scripts/exam/run.js';
import { EXAM_HEADING, parseExamTables, renderExamTables, runnersOf } from '../../scripts/scorecard/exam-table.js';
import { parseMatrix, renderMatrix } from '../../scripts/scorecard/markdown.js';
import { LLM_SDK_SPEC, MCP_SDK_SPEC } from '../../scripts/scorecard/sdk-table.js';
import { TLS_CLIENT_IDS, TLS_SPEC } from '../../scripts/scorecard/tls-table.js';
import { H2_SPEC, h2LiePaths } from '../../scripts/scorecard/http2-table.js';
import { H2C_PATHS, H2C_SPEC } from '../../scripts/scorecard/h2c-table.js';
import { WS_CLIENT_IDS, WS_LIES, WS_SPEC } from '../../scripts/scorecard/websocket-table.js';
import { serviceRegistries } from '../../services/registries.js';
import { MCP_MODES, MESSAGES_MODES } from '../../shared/content/agent/index.js';
import { PROFILE_NAMES, PROFILES } from '../../shared/exam/profiles.js';
import { TLS_MODES } from '../../shared/tls/modes.js';

const doc = readFileSync(clientsDocPath(), 'utf8');
const card = parseScorecard(doc);
const regenerate = 'regenerate it: npx tsc -p tsconfig.json && node dist/scripts/client-scorecard.js --write';
const regenerateTables = (tables: string): string => `regenerate them: npx tsc -p tsconfig.json && node dist/scripts/client-scorecard.js --write --table ${tables}`;

t.test('docs/clients.md covers every lie the script knows, in its order', async (t) => {
  t.ok(doc.includes(GENERATED), 'it says it is generated');
  t.same(card.results.map((r) => r.id), LIES.map((l) => l.id), regenerate);
  for (const lie of LIES) t.ok(doc.includes(`\`{base_url}${lie.path}\``), `${lie.id}: the exact request URL`);
});

t.test('each lie has a row per client, in order, then at most the control twin', async (t) => {
  const names = CLIENT_IDS.map((id) => CLIENTS[id].name);
  for (const result of card.results) {
    const clients = result.rows.map((r) => r.client);
    t.same(clients.slice(0, names.length), names, `${result.id}: the clients`);
    t.ok(clients.length === names.length || (clients.length === names.length + 1 && clients.at(-1) === CONTROL_ROW), `${result.id}: nothing else`);
    for (const row of result.rows) {
      t.ok(row.outcome.length > 0, `${result.id} ${row.client}: an outcome`);
      t.match(row.connections, /^(\d+|—)$/, `${result.id} ${row.client}: connections`);
      t.match(row.requests, /^(\d+|—)$/, `${result.id} ${row.client}: requests`);
    }
  }
});

t.test('it records every client\'s version and the date', async (t) => {
  t.match(card.date, /^\d{4}-\d\d-\d\d$/);
  t.same(Object.keys(card.versions), [...CLIENT_IDS]);
  for (const [client, version] of Object.entries(card.versions)) t.ok(version.length > 0, `${client}: ${version}`);
});

t.test('docs/clients.md is exactly what the script renders from its results', async (t) => {
  t.equal(renderScorecard(card), doc, `the page and the script's format differ: ${regenerate}`);
});

t.test('the lies are requests the chaos host serves, parameters in range', async (t) => {
  t.doesNotThrow(() => checkLies());
  t.throws(() => checkLies([{ id: 'gone', title: 'x', lie: 'x', path: '/no-such-endpoint' }]), /no chaos endpoint serves \/no-such-endpoint/);
  t.throws(() => checkLies([{ id: 'typo', title: 'x', lie: 'x', path: '/truncate?att=10' }]), /declares no att/);
  t.throws(() => checkLies([{ id: 'range', title: 'x', lie: 'x', path: '/truncate?at=0' }]), /clamped at=1/);
  t.throws(() => checkLies([{ id: 'mode', title: 'x', lie: 'x', path: '/chunked?mode=nope' }]), /mode/);
});

t.test('a cell shows any client message as it is', async (t) => {
  for (const text of ['a | b', 'back\\slash\\|', '<html> & `code` *x* _y_', "b'\\x00'"]) {
    const cell = escapeCell(text);
    t.notMatch(cell.replace(/\\\|/g, ''), /\|/, `${text}: no bare pipe`);
    t.equal(unescapeCell(cell), text);
  }
});

t.test('the WebSocket table: every /ws chaos lie, a cell per client and the twin column, each client\'s version', async (t) => {
  const table = card.websocket;
  t.ok(table, `docs/clients.md has "## ${WS_SPEC.heading}": ${regenerate}`);
  t.same(table?.rows.map((r) => r.id), WS_LIES.map((l) => l.path), regenerate);
  for (const row of table?.rows ?? []) {
    t.equal(row.cells.length, WS_CLIENT_IDS.length + 1, `${row.id}: a cell per client, then the twin`);
    t.ok(row.cells.every((c) => c.length > 0), `${row.id}: no empty cell`);
  }
  t.same(Object.keys(table?.versions ?? {}), [...WS_CLIENT_IDS]);
  // Every /ws endpoint of the chaos host is in the list.
  const wsPaths = serviceRegistries().chaos.endpoints.filter((e) => e.path.startsWith('/ws/')).map((e) => e.path);
  t.same([...new Set(WS_LIES.map((l) => new URL(l.path, 'http://x').pathname))].sort(), [...wsPaths].sort());
});

t.test('the TLS table: every TLS mode, a cell per client, each client\'s version', async (t) => {
  const table = card.tls;
  t.ok(table, `docs/clients.md has "## ${TLS_SPEC.heading}": ${regenerate}`);
  t.same(table?.rows.map((r) => r.id), [...TLS_MODES], regenerate);
  for (const row of table?.rows ?? []) {
    t.equal(row.cells.length, TLS_CLIENT_IDS.length, `${row.id}: a cell per client`);
    t.ok(row.cells.every((c) => c.length > 0), `${row.id}: no empty cell`);
  }
  t.same(Object.keys(table?.versions ?? {}), [...TLS_CLIENT_IDS]);
});

t.test('the HTTP/2 table: every /h2/* lie and mode, a cell per client and the twin column, each client\'s version', async (t) => {
  const table = card.http2;
  t.ok(table, `docs/clients.md has "## ${H2_SPEC.heading}": ${regenerate}`);
  t.same(table?.rows.map((r) => r.id), h2LiePaths(serviceRegistries().chaos.endpoints), `${regenerate} (or --write --table http2)`);
  for (const row of table?.rows ?? []) {
    t.equal(row.cells.length, H2_SPEC.clients.length + 1, `${row.id}: a cell per client, then the twin`);
    t.ok(row.cells.every((c) => c.length > 0), `${row.id}: no empty cell`);
  }
  t.same(Object.keys(table?.versions ?? {}), H2_SPEC.clients.map((c) => c.id));
});

t.test('the h2c upgrade table: its paths, a cell per client, each client\'s version', async (t) => {
  const table = card.h2c;
  t.ok(table, `docs/clients.md has "## ${H2C_SPEC.heading}": ${regenerate}`);
  t.same(table?.rows.map((r) => r.id), H2C_PATHS, `${regenerate} (or --write --table h2c)`);
  for (const row of table?.rows ?? []) {
    t.equal(row.cells.length, H2C_SPEC.clients.length, `${row.id}: a cell per client`);
    t.ok(row.cells.every((c) => c.length > 0 && c !== 'no answer'), `${row.id}: no empty cell`);
  }
  t.same(Object.keys(table?.versions ?? {}), H2C_SPEC.clients.map((c) => c.id));
});

t.test('a matrix table renders and reads back, whatever its cells say', async (t) => {
  const result = { versions: { node: 'v | 1', ws: 'x', python: 'p', chromium: 'c' }, rows: [{ id: '/ws/a?mode=b', cells: ['error "a|b" <c>', '`x`', 'y', 'z', 'no failure'] }] };
  const markdown = renderMatrix(WS_SPEC, result).join('\n');
  t.same(parseMatrix(WS_SPEC, `# x\n\n${markdown}\n## after\n| \`y\` | z |\n`), result, 'stops at the next section');
  t.equal(parseMatrix(TLS_SPEC, markdown), undefined, 'another table: not there');
});

t.test('the exam section names every runner with its version, and has a table per profile: a row per runner, a cell per step', async (t) => {
  const exam = card.exam;
  t.ok(exam, `docs/clients.md has "## ${EXAM_HEADING}": ${regenerateTables('exam')}`);
  const section = doc.slice(doc.indexOf(`## ${EXAM_HEADING}`));
  for (const runner of RUNNERS) {
    t.ok(section.includes(`| ${runner.name} | `) && section.includes(`| \`${runner.id}\` |`), `${runner.id}: named in the exam section`);
    t.ok((exam?.versions[runner.id] ?? '').length > 0, `${runner.id}: its version (${exam?.versions[runner.id]})`);
  }
  t.same(exam?.profiles.map((p) => p.profile), PROFILE_NAMES, `a table per profile, the agents one too: ${regenerateTables('exam')}`);
  for (const table of exam?.profiles ?? []) {
    t.same(table.steps, (PROFILES[table.profile] ?? []).map((s) => s.name), `${table.profile}: a column per step, in order`);
    t.same(table.rows.map((r) => r.runner), runnersOf(table.profile).map((r) => r.id), `${table.profile}: a row per runner that takes it, in order`);
    for (const row of table.rows) {
      t.equal(row.cells.length, table.steps.length, `${table.profile} ${row.runner}: a cell per step`);
      t.ok(row.cells.every((c) => /^(pass|FAIL): .+|^not run/.test(c)), `${table.profile} ${row.runner}: each cell a verdict and what was observed`);
    }
  }
  // The generator's stack serves TLS: the https step ran for every runner that can take it, and says why for the others.
  const redirects = exam?.profiles.find((p) => p.profile === 'redirects');
  const column = redirects?.steps.indexOf('https-downgrade') ?? -1;
  t.ok(column >= 0, 'the redirects table has the https-downgrade column');
  for (const row of redirects?.rows ?? []) t.match(row.cells[column], /^(pass|FAIL): .+|^not run: (?!the exam left it out).+/, `https-downgrade, ${row.runner}: a verdict, or not run with the reason`);
});

t.test('the SDK tables: every /mcp chaos mode with the MCP SDK, every LLM chaos mode with the three LLM SDKs', async (t) => {
  t.ok(card.sdk, `docs/clients.md has "## ${MCP_SDK_SPEC.heading}" and "## ${LLM_SDK_SPEC.heading}": ${regenerateTables('sdk')}`);
  t.same(card.sdk?.mcp.rows.map((r) => r.id), [...MCP_MODES], regenerateTables('sdk'));
  t.same(card.sdk?.llm.rows.map((r) => r.id), [...MESSAGES_MODES], regenerateTables('sdk'));
  for (const row of [...(card.sdk?.mcp.rows ?? []), ...(card.sdk?.llm.rows ?? [])]) t.ok(row.cells.length > 0 && row.cells.every((c) => c.length > 0), `${row.id}: an outcome per SDK`);
  t.same(Object.keys(card.sdk?.llm.versions ?? {}), LLM_SDK_SPEC.clients.map((c) => c.id), 'each LLM SDK\'s version');
  t.match(card.sdk?.mcp.versions.mcp, /^\d+\.\d+\.\d+$/, 'the MCP SDK\'s version');
});

t.test('the exam tables render and read back, whatever a cell says', async (t) => {
  const tables = {
    versions: { curl: 'curl 8 | x', wget: 'GNU Wget <1>' },
    profiles: [
      { profile: 'retries', steps: ['fail-first', 'post-503'], rows: [{ runner: 'curl', cells: ['pass: 3 requests (503, 503, 200) | `x`', 'not run'] }, { runner: 'wget', cells: ['FAIL: a *b* _c_ \\ d', 'pass: 1 request'] }] },
      { profile: 'streams', steps: ['sse-resume'], rows: [{ runner: 'wget', cells: ['FAIL: <none> & more'] }] },
    ],
  };
  const markdown = renderExamTables(tables).join('\n');
  t.same(parseExamTables(`# x\n\n${markdown}\n## after\n| curl | z |\n`), tables, 'stops at the next section');
  t.equal(parseExamTables('# nothing here'), undefined);
});
