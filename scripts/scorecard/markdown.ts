// Table cells of the client scorecard (docs/clients.md): any client message
// shown as it is, and read back. Also renders and reads the scorecard's
// matrix tables (a row per lie, a column per client: WebSocket and TLS).

/** Table-cell text: pipes, Markdown punctuation and HTML escaped, so any client message shows as it is. */
export function escapeCell(text: string): string {
  return text
    .replace(/[\\`*_|]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

export function unescapeCell(cell: string): string {
  return cell
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\\([\\`*_|])/g, '$1');
}

/** The cells of a table row, split at pipes that are not escaped. */
export function splitRow(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 1; i < line.length; i++) {
    const c = line[i] as string;
    if (c === '\\') {
      cell += c + (line[i + 1] ?? '');
      i++;
    } else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += c;
    }
  }
  return cells;
}

/** A client of a matrix table. */
export interface MatrixClient {
  readonly id: string;
  readonly name: string;
  /** How it is run, in Markdown. */
  readonly runAs: string;
}

/** One lie: its id (shown as code) and what each client did, then the extra columns. */
export interface MatrixRow {
  readonly id: string;
  readonly cells: readonly string[];
}

/** What a run of a matrix table measured. */
export interface MatrixResult {
  readonly versions: Readonly<Record<string, string>>;
  readonly rows: readonly MatrixRow[];
}

/** How a matrix table is laid out: a `## heading` section, its clients (with versions), then the matrix. */
export interface MatrixSpec {
  readonly heading: string;
  /** Markdown paragraphs before the tables. */
  readonly intro: readonly string[];
  readonly clients: readonly MatrixClient[];
  /** The first column's title (the lie). */
  readonly rowTitle: string;
  /** Columns after the clients. */
  readonly extraColumns: readonly string[];
  /** Written before each row's id in its first cell (`ws://HOST`: a row is not where a path is documented, docs.test.ts). */
  readonly rowPrefix?: string;
}

export function renderMatrix(spec: MatrixSpec, result: MatrixResult): string[] {
  const columns = [spec.rowTitle, ...spec.clients.map((c) => c.name), ...spec.extraColumns];
  return [
    `## ${spec.heading}`,
    '',
    ...spec.intro.flatMap((paragraph) => [paragraph, '']),
    '| client | version | run as |',
    '|---|---|---|',
    ...spec.clients.map((c) => `| ${c.name} | ${escapeCell(result.versions[c.id] ?? 'not run')} | ${c.runAs} |`),
    '',
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---|').join('')}`,
    ...result.rows.map((row) => `| \`${spec.rowPrefix ?? ''}${row.id}\` | ${row.cells.map(escapeCell).join(' | ')} |`),
    '',
  ];
}

/** Reads a matrix section back from the whole page (undefined when the page has none). */
export function parseMatrix(spec: MatrixSpec, markdown: string): MatrixResult | undefined {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${spec.heading}`);
  if (start === -1) return undefined;
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const names = new Map(spec.clients.map((c) => [c.name, c.id]));
  const versions: Record<string, string> = {};
  const rows: MatrixRow[] = [];
  for (const line of lines.slice(start + 1, end === -1 ? undefined : end)) {
    if (!line.startsWith('| ') || line.startsWith('|---')) continue;
    const cells = splitRow(line);
    const id = names.get(cells[0] ?? '');
    if (cells.length === 3 && id !== undefined) versions[id] = unescapeCell(cells[1] ?? '');
    else if (/^`[^`]+`$/.test(cells[0] ?? '')) rows.push({ id: (cells[0] as string).slice(1 + (spec.rowPrefix ?? '').length, -1), cells: cells.slice(1).map(unescapeCell) });
  }
  return { versions, rows };
}
