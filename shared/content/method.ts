// Twin content, method family: /head-lies (/method keeps its own in format.ts).
// The GET answer both hosts serve, so the twin's HEAD can match it exactly and
// the chaos HEAD differs only by its lie.
import { jsonBody } from '../primitives/json.js';
import { oneOf } from '../primitives/params.js';

export const HEAD_LIES_MODES = ['different-length', 'different-type', 'body-on-head'] as const;
export type HeadLiesMode = (typeof HEAD_LIES_MODES)[number];

export const HEAD_LIES_PARAMS = {
  mode: oneOf(HEAD_LIES_MODES, { default: 'different-length', description: "how HEAD's answer differs from GET's" }),
};

export const HEAD_LIES_TYPE = 'application/json';
/** What HEAD claims in different-type. */
export const HEAD_LIES_WRONG_TYPE = 'text/html; charset=utf-8';

const NOTES: Readonly<Record<HeadLiesMode, string>> = {
  'different-length': "HEAD's Content-Length is twice GET's",
  'different-type': `HEAD's Content-Type is ${HEAD_LIES_WRONG_TYPE}`,
  'body-on-head': "HEAD's head is GET's, then this body follows it: it poisons the next response on the connection",
};

const BODIES = new Map<HeadLiesMode, Buffer>(HEAD_LIES_MODES.map((mode) => [mode, jsonBody({ endpoint: '/head-lies', mode, head: NOTES[mode] })]));

/** GET's body; the same for the twin, whose HEAD then matches it. */
export function headLiesBody(mode: HeadLiesMode): Buffer {
  return BODIES.get(mode) as Buffer;
}
