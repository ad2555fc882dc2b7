// Twin content, method family: /method and /head-lies.
// The GET answers and Allow values both hosts serve, so the twin can match
// them exactly and the chaos host differs only by its lie.
import { jsonBody } from '../primitives/json.js';
import { oneOf } from '../primitives/params.js';

// ---- /method -------------------------------------------------------------

export const METHOD_MODES = ['lying-allow', 'silent-on-wrong-method', '405-without-allow', 'options-mismatch'] as const;
export type MethodMode = (typeof METHOD_MODES)[number];

/** The six methods /method answers (HEAD rides along with GET). */
export const SIX_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** The lying Allow value: six methods claimed, only GET (and HEAD) really handled. */
export const ALLOW_SIX = SIX_METHODS.join(', ');
/** The true Allow value of /method (the control twin's, and the 405 of options-mismatch). */
export const ALLOW_TRUE = 'GET, HEAD';
/** What the control twin really serves at /method: GET and HEAD answered, OPTIONS 204. */
export const ALLOW_CONTROL = 'GET, HEAD, OPTIONS';

/** What each mode does with a method other than GET/HEAD, as the GET explanation says it. */
export const METHOD_BEHAVIOUR: Readonly<Record<MethodMode, { readonly others: string; readonly options: string }>> = {
  'lying-allow': {
    others: `405 with Allow: ${ALLOW_SIX} (claims the very method it refuses)`,
    options: `405 with the same lying Allow: ${ALLOW_SIX}, like every other non-GET method`,
  },
  'silent-on-wrong-method': {
    others: '200 with an empty body; nothing was done',
    options: '200 with an empty body, like every other non-GET method',
  },
  '405-without-allow': {
    others: '405 with no Allow header',
    options: '405 with no Allow header, like every other non-GET method',
  },
  'options-mismatch': {
    others: `405 with Allow: ${ALLOW_TRUE}, contradicting what OPTIONS advertises`,
    options: `204 advertising Allow: ${ALLOW_SIX}`,
  },
};

const METHOD_GET_BODIES = new Map<MethodMode, Buffer>(
  METHOD_MODES.map((mode) => [
    mode,
    jsonBody({
      endpoint: '/method',
      mode,
      method: 'GET',
      handled: ['GET', 'HEAD'],
      other_methods: METHOD_BEHAVIOUR[mode].others,
      options: METHOD_BEHAVIOUR[mode].options,
    }),
  ]),
);

export function methodGetBody(mode: MethodMode): Buffer {
  return METHOD_GET_BODIES.get(mode) as Buffer;
}

// ---- /head-lies ----------------------------------------------------------

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
