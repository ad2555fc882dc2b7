// Twin content, payload family (format standards): /cloudevents, /jsonapi and
// /problem-details on both hosts. The control twin conforms (CloudEvents 1.0,
// JSON:API 1.1, RFC 9457); each chaos mode breaks one requirement of the same
// document. Everything is built once at module load.
import type { HeaderList } from '../../primitives/headers.js';
import { jsonBody } from '../../primitives/json.js';
import { bool, oneOf } from '../../primitives/params.js';

/** A complete answer both hosts render: status, Content-Type, lines beyond the common head, body. */
export interface StandardAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly headers: HeaderList;
  readonly body: Buffer;
}

// ---------------------------------------------------------------- CloudEvents 1.0

export const CLOUDEVENTS_MODES = [
  'mode-mismatch', 'missing-attributes', 'wrong-specversion', 'lying-datacontenttype', 'type-as-number', 'data-base64-confusion',
] as const;
export type CloudEventsMode = (typeof CLOUDEVENTS_MODES)[number];

export const CLOUDEVENTS_PARAMS = {
  mode: oneOf(CLOUDEVENTS_MODES, { default: 'mode-mismatch', description: 'which requirement the event breaks (the twin accepts it, sends a valid event)' }),
  binary: bool({ default: false, description: 'binary content mode (ce-* headers, the data as the body) instead of structured' }),
};

/** The structured-mode media type (CloudEvents JSON event format). */
export const CLOUDEVENTS_STRUCTURED = 'application/cloudevents+json; charset=utf-8';

/** The event's context attributes; data goes apart. */
export const CLOUDEVENT_ATTRIBUTES = {
  specversion: '1.0',
  id: 'evt-00042',
  source: '/cloudevents',
  type: 'com.example.chaos.order.created',
  subject: 'order-42',
  time: '2026-01-01T00:00:00Z',
  datacontenttype: 'application/json',
} as const;

export const CLOUDEVENT_DATA = { order_id: 'order-42', amount: 1999, currency: 'EUR' } as const;

type Attributes = Partial<Record<keyof typeof CLOUDEVENT_ATTRIBUTES, string>>;

/** type-as-number: the type attribute as a JSON number (CloudEvents 1.0 types it String). */
export const CLOUDEVENT_NUMERIC_TYPE = 1001;
/** data-base64-confusion: the JSON data's bytes in base64, where the object belongs. */
export const CLOUDEVENT_DATA_BASE64 = jsonBody(CLOUDEVENT_DATA).toString('base64');

/** One event in either content mode: structured puts everything in the JSON body; binary puts attributes in ce-* headers. */
function cloudEvent(attributes: Attributes, binary: boolean): StandardAnswer {
  if (!binary) return { status: 200, contentType: CLOUDEVENTS_STRUCTURED, headers: [], body: jsonBody({ ...attributes, data: CLOUDEVENT_DATA }) };
  const { datacontenttype, ...rest } = attributes;
  const headers: HeaderList = Object.entries(rest).map(([name, value]) => [`ce-${name}`, value] as const);
  return { status: 200, contentType: datacontenttype ?? 'application/json', headers, body: jsonBody(CLOUDEVENT_DATA) };
}

/** The control twin: a valid CloudEvent in the requested content mode. */
export function validCloudEvent(binary: boolean): StandardAnswer {
  return cloudEvent(CLOUDEVENT_ATTRIBUTES, binary);
}

/** The chaos /cloudevents: the same event with the mode's one defect, in the requested content mode. */
export function chaosCloudEvent(mode: CloudEventsMode, binary: boolean): StandardAnswer {
  switch (mode) {
    case 'mode-mismatch': {
      // The attributes travel as binary-mode ce-* headers, yet Content-Type
      // announces a structured event, whose body would have to carry them.
      const asBinary = cloudEvent(CLOUDEVENT_ATTRIBUTES, true);
      return { ...asBinary, contentType: CLOUDEVENTS_STRUCTURED };
    }
    case 'missing-attributes': {
      // Without the required id and source.
      const { id: _id, source: _source, ...rest } = CLOUDEVENT_ATTRIBUTES;
      return cloudEvent(rest, binary);
    }
    case 'wrong-specversion':
      return cloudEvent({ ...CLOUDEVENT_ATTRIBUTES, specversion: '2.0' }, binary);
    case 'lying-datacontenttype':
      // The data is JSON; the attribute (and, in binary mode, the Content-Type) says XML.
      return cloudEvent({ ...CLOUDEVENT_ATTRIBUTES, datacontenttype: 'application/xml' }, binary);
    case 'type-as-number':
      // Only the JSON format can carry a number (a ce-type header is always text), so this mode is structured whatever `binary` says.
      return {
        status: 200, contentType: CLOUDEVENTS_STRUCTURED, headers: [],
        body: jsonBody({ ...CLOUDEVENT_ATTRIBUTES, type: CLOUDEVENT_NUMERIC_TYPE, data: CLOUDEVENT_DATA }),
      };
    case 'data-base64-confusion':
      // datacontenttype says JSON, yet the data is base64 text: in `data` in structured mode (base64 belongs in
      // data_base64, and only for binary data), as the whole body in binary mode (labelled application/json, not JSON).
      return binary
        ? { status: 200, contentType: 'application/json', headers: cloudEvent(CLOUDEVENT_ATTRIBUTES, true).headers, body: Buffer.from(CLOUDEVENT_DATA_BASE64) }
        : { status: 200, contentType: CLOUDEVENTS_STRUCTURED, headers: [], body: jsonBody({ ...CLOUDEVENT_ATTRIBUTES, data: CLOUDEVENT_DATA_BASE64 }) };
  }
}

// ---------------------------------------------------------------- JSON:API 1.1

export const JSONAPI_MODES = [
  'data-and-errors', 'media-type-params', 'dead-relationship-links', 'duplicate-resources',
  'data-shape-confusion', 'included-orphan', 'missing-id', 'type-missing',
] as const;
export type JsonApiMode = (typeof JSONAPI_MODES)[number];

/** The documents the twin serves, so every link it emits resolves (`?doc=`). */
export const JSONAPI_DOCS = [
  'articles',
  'article-1',
  'article-1-author',
  'article-1-comments',
  'article-1-relationships-author',
  'article-1-relationships-comments',
] as const;
export type JsonApiDoc = (typeof JSONAPI_DOCS)[number];

export const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';

export const JSONAPI_PARAMS = {
  mode: oneOf(JSONAPI_MODES, { default: 'data-and-errors', description: 'which rule the document breaks (the twin accepts it, sends a valid document)' }),
};
export const JSONAPI_TWIN_PARAMS = {
  ...JSONAPI_PARAMS,
  doc: oneOf(JSONAPI_DOCS, { default: 'articles', description: 'which document (the targets of the links; the chaos host serves articles)' }),
};

const docUrl = (doc: JsonApiDoc): string => (doc === 'articles' ? '/jsonapi' : `/jsonapi?doc=${doc}`);

interface Identifier {
  readonly type: string;
  readonly id: string;
}
const AUTHOR: Identifier = { type: 'people', id: '9' };
const COMMENTS: readonly Identifier[] = [
  { type: 'comments', id: '5' },
  { type: 'comments', id: '12' },
];

type RelationshipLinks = { readonly self: string; readonly related: string };
const TWIN_RELATIONSHIP_LINKS: Readonly<Record<'author' | 'comments', RelationshipLinks>> = {
  author: { self: docUrl('article-1-relationships-author'), related: docUrl('article-1-author') },
  comments: { self: docUrl('article-1-relationships-comments'), related: docUrl('article-1-comments') },
};
/** What dead-relationship-links points to instead: the conventional paths, which this service does not serve. */
const DEAD_RELATIONSHIP_LINKS: Readonly<Record<'author' | 'comments', RelationshipLinks>> = {
  author: { self: '/jsonapi/articles/1/relationships/author', related: '/jsonapi/articles/1/author' },
  comments: { self: '/jsonapi/articles/1/relationships/comments', related: '/jsonapi/articles/1/comments' },
};

function article(links: Readonly<Record<'author' | 'comments', RelationshipLinks>>): Record<string, unknown> {
  return {
    type: 'articles',
    id: '1',
    attributes: { title: 'Chaos, served well-formed', published: '2026-01-01' },
    relationships: {
      author: { links: links.author, data: AUTHOR },
      comments: { links: links.comments, data: COMMENTS },
    },
    links: { self: docUrl('article-1') },
  };
}

const PERSON = { ...AUTHOR, attributes: { name: 'Ada Example', twitter: 'ada' } };
const COMMENT_RESOURCES = [
  { ...COMMENTS[0], attributes: { body: 'First!' } },
  { ...COMMENTS[1], attributes: { body: 'I like the twin better.' } },
];
const INCLUDED = [PERSON, ...COMMENT_RESOURCES];
const JSONAPI_OBJECT = { version: '1.1' };

function jsonApiDocument(doc: JsonApiDoc): object {
  const top = { jsonapi: JSONAPI_OBJECT, links: { self: docUrl(doc) } };
  switch (doc) {
    case 'articles':
      return { ...top, data: [article(TWIN_RELATIONSHIP_LINKS)], included: INCLUDED };
    case 'article-1':
      return { ...top, data: article(TWIN_RELATIONSHIP_LINKS), included: INCLUDED };
    case 'article-1-author':
      return { ...top, data: PERSON };
    case 'article-1-comments':
      return { ...top, data: COMMENT_RESOURCES };
    case 'article-1-relationships-author':
      return { jsonapi: JSONAPI_OBJECT, links: TWIN_RELATIONSHIP_LINKS.author, data: AUTHOR };
    case 'article-1-relationships-comments':
      return { jsonapi: JSONAPI_OBJECT, links: TWIN_RELATIONSHIP_LINKS.comments, data: COMMENTS };
  }
}

const JSONAPI_TWIN = new Map<JsonApiDoc, Buffer>(JSONAPI_DOCS.map((doc) => [doc, jsonBody(jsonApiDocument(doc))]));

/** The control twin: a valid JSON:API 1.1 document whose links all resolve on the control host. */
export function validJsonApi(doc: JsonApiDoc): StandardAnswer {
  return { status: 200, contentType: JSONAPI_MEDIA_TYPE, headers: [], body: JSONAPI_TWIN.get(doc) as Buffer };
}

/** included-orphan: a resource no relationship in the document names (compound documents need full linkage). */
const ORPHAN = { type: 'tags', id: '3', attributes: { label: 'unlinked' } };

const JSONAPI_ERROR = { status: '404', code: 'comment-not-found', title: 'A comment was not found', detail: 'comment 7 does not exist' };
const ARTICLES = jsonApiDocument('articles') as Readonly<Record<string, unknown>>;

const JSONAPI_CHAOS: Readonly<Record<JsonApiMode, StandardAnswer>> = {
  // `data` and `errors` MUST NOT coexist in a top-level document.
  'data-and-errors': {
    status: 200, contentType: JSONAPI_MEDIA_TYPE, headers: [], body: jsonBody({ ...ARTICLES, errors: [JSONAPI_ERROR] }),
  },
  // Only `ext` and `profile` are allowed; any other media type parameter is an error.
  'media-type-params': {
    status: 200, contentType: `${JSONAPI_MEDIA_TYPE}; charset=utf-8; version=1.1`, headers: [], body: JSONAPI_TWIN.get('articles') as Buffer,
  },
  'dead-relationship-links': {
    status: 200, contentType: JSONAPI_MEDIA_TYPE, headers: [], body: jsonBody({ ...ARTICLES, data: [article(DEAD_RELATIONSHIP_LINKS)] }),
  },
  // A compound document MUST NOT include more than one resource object per type and id.
  'duplicate-resources': {
    status: 200,
    contentType: JSONAPI_MEDIA_TYPE,
    headers: [],
    body: jsonBody({ ...ARTICLES, included: [...INCLUDED, { ...AUTHOR, attributes: { name: 'Someone Else', twitter: 'not-ada' } }] }),
  },
  // The collection's self link (/jsonapi) with one resource object as data, not an array of them.
  'data-shape-confusion': { status: 200, contentType: JSONAPI_MEDIA_TYPE, headers: [], body: jsonBody({ ...ARTICLES, data: article(TWIN_RELATIONSHIP_LINKS) }) },
  'included-orphan': { status: 200, contentType: JSONAPI_MEDIA_TYPE, headers: [], body: jsonBody({ ...ARTICLES, included: [...INCLUDED, ORPHAN] }) },
  // A resource object from the server MUST have an id (and always a type).
  'missing-id': { status: 200, contentType: JSONAPI_MEDIA_TYPE, headers: [], body: jsonBody({ ...ARTICLES, data: [without(article(TWIN_RELATIONSHIP_LINKS), 'id')] }) },
  'type-missing': { status: 200, contentType: JSONAPI_MEDIA_TYPE, headers: [], body: jsonBody({ ...ARTICLES, data: [without(article(TWIN_RELATIONSHIP_LINKS), 'type')] }) },
};

function without(resource: Record<string, unknown>, member: string): Record<string, unknown> {
  const { [member]: _dropped, ...rest } = resource;
  return rest;
}

export function chaosJsonApi(mode: JsonApiMode): StandardAnswer {
  return JSONAPI_CHAOS[mode];
}

// ---------------------------------------------------------------- RFC 9457 problem details

export const PROBLEM_MODES = [
  'wrong-media-type', 'status-mismatch', 'relative-type-404', 'shadowed-members', 'drop-required', 'status-type-shift', 'instance-malformed',
] as const;
export type ProblemMode = (typeof PROBLEM_MODES)[number];

export const PROBLEM_PARAMS = {
  mode: oneOf(PROBLEM_MODES, { default: 'wrong-media-type', description: 'which rule the problem breaks (the twin accepts it, sends a valid problem)' }),
};
export const PROBLEM_TWIN_PARAMS = {
  ...PROBLEM_PARAMS,
  describe: bool({ default: false, description: 'the human-readable page the problem type URI names (HTML)' }),
};

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
/** The twin's type: a relative reference that resolves, on the control host, to the type's description. */
export const PROBLEM_TYPE = '/problem-details?describe=true';
export const PROBLEM_STATUS = 403;

const PROBLEM = {
  type: PROBLEM_TYPE,
  title: 'You do not have enough credit.',
  status: PROBLEM_STATUS,
  detail: 'Your current balance is 30, but that costs 50.',
  instance: 'urn:uuid:6f1c2b9e-3d4a-4c5b-8e7f-000000000042',
  balance: 30,
  cost: 50,
};

export function validProblem(): StandardAnswer {
  return { status: PROBLEM_STATUS, contentType: PROBLEM_MEDIA_TYPE, headers: [], body: jsonBody(PROBLEM) };
}

export const PROBLEM_TYPE_PAGE = Buffer.from(
  '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Out of credit</title></head>' +
    '<body><h1>Out of credit</h1><p>The account balance is lower than the cost of the request. ' +
    'The problem details carry <code>balance</code> and <code>cost</code>; add credit and retry.</p></body></html>\n',
  'utf8',
);

/** shadowed-members: standard members repeated later in the object with other values (most parsers keep the last). */
const SHADOWED_TEXT =
  `${JSON.stringify(PROBLEM).slice(0, -1)},"status":"ok","title":"Success","type":"https://example.com/not-a-problem"}\n`;

/** instance-malformed: spaces, braces and a second '#': not a URI reference (RFC 3986), which instance must be. */
export const PROBLEM_MALFORMED_INSTANCE = 'urn:uuid:{6f1c2b9e-3d4a-4c5b-8e7f-000000000042} #balance #cost';
const { type: _type, title: _title, status: _status, ...PROBLEM_WITHOUT_CORE } = PROBLEM;

const PROBLEM_CHAOS: Readonly<Record<ProblemMode, StandardAnswer>> = {
  'wrong-media-type': { status: PROBLEM_STATUS, contentType: 'application/json', headers: [], body: jsonBody(PROBLEM) },
  // The HTTP status says success; the status member says 403.
  'status-mismatch': { status: 200, contentType: PROBLEM_MEDIA_TYPE, headers: [], body: jsonBody(PROBLEM) },
  // A relative type that resolves, on this host, to a path it answers with 404.
  'relative-type-404': {
    status: PROBLEM_STATUS, contentType: PROBLEM_MEDIA_TYPE, headers: [], body: jsonBody({ ...PROBLEM, type: '/problems/out-of-credit' }),
  },
  'shadowed-members': { status: PROBLEM_STATUS, contentType: PROBLEM_MEDIA_TYPE, headers: [], body: Buffer.from(SHADOWED_TEXT, 'utf8') },
  // No type, title or status: the members every client keys on (a reader must assume about:blank and the HTTP status).
  'drop-required': { status: PROBLEM_STATUS, contentType: PROBLEM_MEDIA_TYPE, headers: [], body: jsonBody(PROBLEM_WITHOUT_CORE) },
  // status as the string "403" (RFC 9457 §3.1.2: a JSON number).
  'status-type-shift': { status: PROBLEM_STATUS, contentType: PROBLEM_MEDIA_TYPE, headers: [], body: jsonBody({ ...PROBLEM, status: String(PROBLEM_STATUS) }) },
  'instance-malformed': { status: PROBLEM_STATUS, contentType: PROBLEM_MEDIA_TYPE, headers: [], body: jsonBody({ ...PROBLEM, instance: PROBLEM_MALFORMED_INSTANCE }) },
};

export function chaosProblem(mode: ProblemMode): StandardAnswer {
  return PROBLEM_CHAOS[mode];
}
