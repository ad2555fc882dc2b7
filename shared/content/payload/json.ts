// Twin content, payload family: /json.
// Bodies shared by each chaos endpoint and its control twin so the twin serves
// the same resource and only the lie differs. Everything is built once at
// module load.
import { jsonBody } from '../../primitives/json.js';

// ---------------------------------------------------------------- /json

export const JSON_MODES = ['all', 'missing-brace', 'unquoted-key', 'trailing-comma', 'trailing-garbage'] as const;
export type JsonMode = (typeof JSON_MODES)[number];

const JSON_ITEMS = [
  { id: 1, name: 'alpha' },
  { id: 2, name: 'beta' },
  { id: 3, name: 'gamma' },
] as const;
const ITEMS_TEXT = JSON.stringify(JSON_ITEMS);
/** The items array with a comma after its last element: `…"gamma"},]`. */
const ITEMS_TRAILING_COMMA = `${ITEMS_TEXT.slice(0, -1)},]`;

/** Which defects each mode carries, in the order they appear in the text. */
export const JSON_DEFECTS: Readonly<Record<JsonMode, readonly string[]>> = {
  all: ['unquoted-key', 'trailing-comma', 'missing-brace'],
  'missing-brace': ['missing-brace'],
  'unquoted-key': ['unquoted-key'],
  'trailing-comma': ['trailing-comma'],
  'trailing-garbage': ['trailing-garbage'],
};

/**
 * What trailing-garbage appends after the complete document and its newline:
 * bytes a lenient reader might skip and a strict one rejects (a NUL, bytes that
 * are not UTF-8, and the start of a second value). Content-Length counts them.
 */
export const JSON_TRAILING_GARBAGE = Buffer.from('\u0000\u00ff\u00fe<!-- garbage -->{"truncated":', 'latin1');

/**
 * The chaos /json text: the control document with exactly the mode's defects
 * (`items` unquoted; a comma after the last array element; the closing `}`
 * of the object left off; or a complete document followed by garbage bytes).
 * Never valid JSON.
 */
function brokenJson(mode: JsonMode): Buffer {
  const defects = JSON_DEFECTS[mode];
  const key = defects.includes('unquoted-key') ? 'items' : '"items"';
  const items = defects.includes('trailing-comma') ? ITEMS_TRAILING_COMMA : ITEMS_TEXT;
  const close = defects.includes('missing-brace') ? '' : '}';
  const head = `{"endpoint":"/json","mode":${JSON.stringify(mode)},"valid":false,"defects":${JSON.stringify(defects)}`;
  const text = Buffer.from(`${head},${key}:${items}${close}\n`, 'latin1');
  return defects.includes('trailing-garbage') ? Buffer.concat([text, JSON_TRAILING_GARBAGE]) : text;
}

const BROKEN_JSON = new Map<JsonMode, Buffer>(JSON_MODES.map((mode) => [mode, brokenJson(mode)]));
const VALID_JSON = new Map<JsonMode, Buffer>(
  JSON_MODES.map((mode) => [mode, jsonBody({ endpoint: '/json', mode, valid: true, defects: [], items: JSON_ITEMS })]),
);

export function jsonChaosBody(mode: JsonMode): Buffer {
  return BROKEN_JSON.get(mode) as Buffer;
}

/** The control twin: the same document, well-formed. */
export function jsonControlBody(mode: JsonMode): Buffer {
  return VALID_JSON.get(mode) as Buffer;
}
