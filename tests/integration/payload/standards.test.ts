// Format standards (issue 13): /cloudevents, /jsonapi, /problem-details and
// /json?mode=trailing-garbage. Small checkers below encode the required
// members of CloudEvents 1.0 (HTTP binding, JSON format), JSON:API 1.1 and
// RFC 9457; the control twins must pass them with every link resolving, and
// each chaos mode must fail them for exactly its documented reason.
import t from 'tap';
import {
  JSON_TRAILING_GARBAGE, jsonControlBody, CLOUDEVENT_ATTRIBUTES, CLOUDEVENT_DATA, CLOUDEVENTS_MODES, JSONAPI_DOCS, JSONAPI_MODES,
  PROBLEM_MODES,
} from '../../../shared/content/payload/index.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

interface Reply {
  readonly res: ParsedResponse;
  readonly body: Buffer;
  readonly text: string;
}

async function call(port: number, path: string): Promise<Reply> {
  const result = await rawExchange(port, get(path), { until: completeByLength });
  if (result.end !== 'stopped') throw new Error(`GET ${path}: no complete response (${result.end})`);
  const res = parseHead(result.data);
  const length = Number(res.header('content-length') ?? 0);
  if (res.rest.length !== length) throw new Error(`${path}: ${res.rest.length} body bytes for Content-Length ${length}`);
  const body = res.rest.subarray(0, length);
  return { res, body, text: body.toString('utf8') };
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmptyString = (v: unknown): boolean => typeof v === 'string' && v.length > 0;
const isJsonType = (type: string): boolean => type === 'application/json' || type.endsWith('+json');

/** Member names repeated within one object anywhere in a JSON text (JSON.parse silently keeps the last). */
function duplicateMembers(text: string): string[] {
  const found: string[] = [];
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) found.push(key);
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    } else if (c === '{') stack.push({ keys: new Set(), expectKey: true });
    else if (c === '[') stack.push({ keys: null, expectKey: false });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',' && top?.keys) top.expectKey = true;
  }
  return found;
}

// ---------------------------------------------------------------- CloudEvents 1.0 checker

const CE_REQUIRED = ['id', 'source', 'specversion', 'type'] as const;

/** What a message breaks of CloudEvents 1.0 (HTTP protocol binding, JSON event format); [] when valid. */
function cloudEventProblems(reply: Reply): string[] {
  const problems: string[] = [];
  const type = mediaType(reply.res.header('content-type'));
  const ceHeaders = reply.res.headerLines.filter(([n]) => n.toLowerCase().startsWith('ce-'));
  let attributes: Record<string, unknown>;
  let data: unknown;
  if (type === 'application/cloudevents+json') {
    // Structured mode: the body is the whole event, attributes and data.
    if (ceHeaders.length > 0) problems.push('structured mode with ce-* headers');
    const event = parseJson(reply.text);
    if (!isObject(event)) return [...problems, 'structured body is not a JSON object'];
    attributes = event;
    data = event.data;
    const dct = typeof event.datacontenttype === 'string' ? mediaType(event.datacontenttype) : 'application/json';
    if ('data' in event && !isJsonType(dct) && typeof data !== 'string') problems.push(`data is JSON but datacontenttype says ${dct}`);
    // A JSON string is valid JSON data; one that is base64 of a JSON object is data_base64's content in the wrong member.
    if (isJsonType(dct) && typeof data === 'string' && /^[A-Za-z0-9+/]+=*$/.test(data) && isObject(parseJson(Buffer.from(data, 'base64').toString('utf8')))) {
      problems.push('data is base64 text of JSON');
    }
  } else {
    // Binary mode: attributes in ce-* headers, Content-Type is datacontenttype, the body is the data.
    attributes = Object.fromEntries(ceHeaders.map(([n, v]) => [n.slice(3).toLowerCase(), v]));
    if (isJsonType(type) && parseJson(reply.text) === undefined) problems.push('binary body does not parse as its Content-Type');
    if (type === 'application/xml' && !reply.text.trimStart().startsWith('<')) problems.push(`data is not what Content-Type says (${type})`);
  }
  for (const name of CE_REQUIRED) {
    if (attributes[name] === undefined) problems.push(`missing ${name}`);
    else if (!nonEmptyString(attributes[name])) problems.push(`${name} is not a string`);
  }
  if (attributes.specversion !== undefined && attributes.specversion !== '1.0') problems.push(`specversion ${String(attributes.specversion)}`);
  if (attributes.time !== undefined && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(String(attributes.time))) problems.push('time is not RFC 3339');
  return problems;
}

// ---------------------------------------------------------------- JSON:API 1.1 checker

function identity(r: unknown): string | undefined {
  return isObject(r) && nonEmptyString(r.type) && nonEmptyString(r.id) ? `${r.type as string}:${r.id as string}` : undefined;
}

/** What a response breaks of JSON:API 1.1 (media type, top level, resources, linkage); [] when valid. */
function jsonApiProblems(reply: Reply): string[] {
  const problems: string[] = [];
  const [type, ...params] = (reply.res.header('content-type') ?? '').split(';').map((s) => s.trim());
  if (type !== 'application/vnd.api+json') problems.push(`media type ${type ?? ''}`);
  for (const p of params) if (!/^(ext|profile)=/.test(p)) problems.push(`media type parameter ${p}`);
  const doc = parseJson(reply.text);
  if (!isObject(doc)) return [...problems, 'not a JSON object'];
  if (!('data' in doc) && !('errors' in doc) && !('meta' in doc)) problems.push('none of data, errors, meta');
  if ('data' in doc && 'errors' in doc) problems.push('data and errors together');
  if ('included' in doc && !('data' in doc)) problems.push('included without data');
  if (doc.jsonapi !== undefined && !(isObject(doc.jsonapi) && doc.jsonapi.version === '1.1')) problems.push('jsonapi.version is not 1.1');
  const primary = Array.isArray(doc.data) ? doc.data : doc.data === null || doc.data === undefined ? [] : [doc.data];
  const included = Array.isArray(doc.included) ? doc.included : [];
  const seen = new Set<string>();
  const referenced = new Set<string>();
  for (const resource of [...primary, ...included]) {
    const id = identity(resource);
    if (id === undefined) {
      if (!isObject(resource) || !nonEmptyString(resource.type)) problems.push('a resource without type');
      if (!isObject(resource) || !nonEmptyString(resource.id)) problems.push('a resource without id');
    } else {
      if (seen.has(id)) problems.push(`duplicate resource ${id}`);
      seen.add(id);
    }
    // Its relationships still link what they name.
    const relationships = isObject(resource) && isObject(resource.relationships) ? resource.relationships : {};
    for (const [name, rel] of Object.entries(relationships)) {
      if (!isObject(rel) || !('links' in rel || 'data' in rel || 'meta' in rel)) problems.push(`relationship ${name} has none of links, data, meta`);
      const linkage = isObject(rel) ? rel.data : undefined;
      for (const target of Array.isArray(linkage) ? linkage : [linkage]) {
        const targetId = identity(target);
        if (targetId !== undefined) referenced.add(targetId);
      }
    }
  }
  // Full linkage: every included resource is reached from the primary data.
  for (const resource of included) {
    const id = identity(resource);
    if (id !== undefined && !referenced.has(id)) problems.push(`included ${id} is not linked`);
  }
  return problems;
}

/** Every link under a `links` member, anywhere in the document (a string, or a link object's href). */
function jsonApiLinks(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => jsonApiLinks(v));
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([key, member]) => {
    if (key !== 'links') return jsonApiLinks(member);
    if (!isObject(member)) return [];
    return Object.values(member).flatMap((link) => (typeof link === 'string' ? [link] : isObject(link) && typeof link.href === 'string' ? [link.href] : []));
  });
}

// ---------------------------------------------------------------- RFC 9457 checker

/** What a response breaks of RFC 9457; [] when valid. */
function problemProblems(reply: Reply): string[] {
  const problems: string[] = [];
  if (mediaType(reply.res.header('content-type')) !== 'application/problem+json') problems.push(`media type ${mediaType(reply.res.header('content-type'))}`);
  for (const name of duplicateMembers(reply.text)) problems.push(`member ${name} repeated`);
  const doc = parseJson(reply.text);
  if (!isObject(doc)) return [...problems, 'not a JSON object'];
  if (doc.status !== undefined && typeof doc.status !== 'number') problems.push('status is not a number');
  if (typeof doc.status === 'number' && doc.status !== reply.res.status) problems.push(`status member ${doc.status} vs HTTP ${reply.res.status}`);
  if (reply.res.status < 400) problems.push(`HTTP ${reply.res.status} is not an error`);
  for (const name of ['type', 'title', 'detail', 'instance']) {
    if (doc[name] !== undefined && typeof doc[name] !== 'string') problems.push(`${name} is not a string`);
  }
  // None is mandatory in RFC 9457, but a problem without them tells a client nothing it can key on.
  for (const name of ['type', 'title', 'status']) if (doc[name] === undefined) problems.push(`no ${name}`);
  // instance is a URI reference (RFC 3986: these characters only, at most one '#').
  if (typeof doc.instance === 'string' && !/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/.test(doc.instance)) problems.push('instance is not a URI reference');
  if (typeof doc.instance === 'string' && doc.instance.split('#').length > 2) problems.push('instance has two fragments');
  return problems;
}

/** A URI reference resolved against the request, as path and query on the same host (undefined: another scheme or host). */
function sameHostTarget(reference: string, requestPath: string): string | undefined {
  const url = new URL(reference, `http://127.0.0.1${requestPath}`);
  return url.protocol === 'http:' && url.host === '127.0.0.1' ? url.pathname + url.search : undefined;
}

// ---------------------------------------------------------------- tests

t.test('CloudEvents: the twin is a valid event in both content modes; each chaos mode breaks exactly its rule', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const structured = await call(controlPort, '/cloudevents');
  t.equal(structured.res.status, 200);
  t.equal(structured.res.header('content-type'), 'application/cloudevents+json; charset=utf-8');
  t.same(cloudEventProblems(structured), [], 'structured twin: valid');
  t.same(JSON.parse(structured.text), { ...CLOUDEVENT_ATTRIBUTES, data: CLOUDEVENT_DATA });
  const binary = await call(controlPort, '/cloudevents?binary=true');
  t.same(cloudEventProblems(binary), [], 'binary twin: valid');
  t.equal(binary.res.header('content-type'), 'application/json');
  t.equal(binary.res.header('ce-specversion'), '1.0');
  t.equal(binary.res.header('ce-id'), CLOUDEVENT_ATTRIBUTES.id);
  t.equal(binary.res.header('ce-source'), '/cloudevents');
  t.same(JSON.parse(binary.text), CLOUDEVENT_DATA, 'binary twin: the body is the data');
  t.same(cloudEventProblems(await call(controlPort, '/cloudevents?mode=wrong-specversion')), [], 'the twin accepts a mode and stays valid');
  // The twin's one reference, source, is a relative URI that resolves on its host.
  t.equal((await call(controlPort, sameHostTarget(CLOUDEVENT_ATTRIBUTES.source, '/cloudevents') as string)).res.status, 200, 'source resolves');

  const expected: Record<(typeof CLOUDEVENTS_MODES)[number], Record<'structured' | 'binary', string[]>> = {
    'mode-mismatch': {
      structured: ['structured mode with ce-* headers', 'missing id', 'missing source', 'missing specversion', 'missing type'],
      binary: ['structured mode with ce-* headers', 'missing id', 'missing source', 'missing specversion', 'missing type'],
    },
    'missing-attributes': { structured: ['missing id', 'missing source'], binary: ['missing id', 'missing source'] },
    'wrong-specversion': { structured: ['specversion 2.0'], binary: ['specversion 2.0'] },
    'lying-datacontenttype': {
      structured: ['data is JSON but datacontenttype says application/xml'],
      binary: ['data is not what Content-Type says (application/xml)'],
    },
    // Structured whatever binary says: a ce-type header cannot be a number.
    'type-as-number': { structured: ['type is not a string'], binary: ['type is not a string'] },
    'data-base64-confusion': { structured: ['data is base64 text of JSON'], binary: ['binary body does not parse as its Content-Type'] },
  };
  for (const mode of CLOUDEVENTS_MODES) {
    for (const kind of ['structured', 'binary'] as const) {
      const reply = await call(port, `/cloudevents?mode=${mode}${kind === 'binary' ? '&binary=true' : ''}`);
      t.equal(reply.res.status, 200);
      t.equal(reply.res.header('x-chaos-cloudevents-mode'), mode, `${mode} ${kind}: X-Chaos-Cloudevents-Mode`);
      t.same(cloudEventProblems(reply), expected[mode][kind], `${mode} ${kind}: exactly the documented defect`);
    }
  }
  const mismatch = await call(port, '/cloudevents?mode=mode-mismatch');
  t.equal(mismatch.res.header('content-type'), 'application/cloudevents+json; charset=utf-8', 'mode-mismatch: structured Content-Type');
  t.equal(mismatch.res.header('ce-id'), CLOUDEVENT_ATTRIBUTES.id, 'mode-mismatch: the attributes are in ce-* headers');
  t.same(JSON.parse(mismatch.text), CLOUDEVENT_DATA, 'mode-mismatch: the body is the bare data');
  t.equal(JSON.parse((await call(port, '/cloudevents?mode=lying-datacontenttype')).text).datacontenttype, 'application/xml');
  t.same(JSON.parse((await call(port, '/cloudevents?mode=type-as-number&binary=true')).text), { ...CLOUDEVENT_ATTRIBUTES, type: 1001, data: CLOUDEVENT_DATA }, 'type-as-number: the twin event, type 1001');
  const base64 = await call(port, '/cloudevents?mode=data-base64-confusion&binary=true');
  t.same(JSON.parse(Buffer.from(base64.text, 'base64').toString('utf8')), CLOUDEVENT_DATA, 'data-base64-confusion binary: the body is the data in base64');
  t.equal(base64.res.header('content-type'), 'application/json');
  t.same(JSON.parse(Buffer.from(JSON.parse((await call(port, '/cloudevents?mode=data-base64-confusion')).text).data, 'base64').toString('utf8')), CLOUDEVENT_DATA);
});

t.test('JSON:API: the twin is valid 1.1 and every link resolves; each chaos mode breaks exactly its rule', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const followed = new Set<string>();
  for (const doc of JSONAPI_DOCS) {
    const path = doc === 'articles' ? '/jsonapi' : `/jsonapi?doc=${doc}`;
    const reply = await call(controlPort, path);
    t.equal(reply.res.status, 200);
    t.equal(reply.res.header('content-type'), 'application/vnd.api+json', `${doc}: the bare media type`);
    t.same(jsonApiProblems(reply), [], `${doc}: valid JSON:API 1.1`);
    const links = jsonApiLinks(JSON.parse(reply.text));
    t.ok(links.length > 0, `${doc}: has links`);
    for (const link of links) {
      const target = sameHostTarget(link, path);
      t.ok(target, `${link}: on the same host`);
      if (target === undefined || followed.has(target)) continue;
      followed.add(target);
      const landed = await call(controlPort, target);
      t.equal(landed.res.status, 200, `${doc}: ${link} resolves`);
      t.same(jsonApiProblems(landed), [], `${link}: a valid document`);
    }
  }
  t.equal(followed.size, JSONAPI_DOCS.length, 'the links reach every document the twin serves');
  t.same(jsonApiProblems(await call(controlPort, '/jsonapi?mode=data-and-errors')), [], 'the twin accepts a mode and stays valid');

  const expected: Record<(typeof JSONAPI_MODES)[number], string[]> = {
    'data-and-errors': ['data and errors together'],
    'media-type-params': ['media type parameter charset=utf-8', 'media type parameter version=1.1'],
    'dead-relationship-links': [],
    'duplicate-resources': ['duplicate resource people:9'],
    // Well-formed by these rules: its lie is the shape, checked below.
    'data-shape-confusion': [],
    'included-orphan': ['included tags:3 is not linked'],
    'missing-id': ['a resource without id'],
    'type-missing': ['a resource without type'],
  };
  for (const mode of JSONAPI_MODES) {
    const reply = await call(port, `/jsonapi?mode=${mode}`);
    t.equal(reply.res.status, 200);
    t.equal(reply.res.header('x-chaos-jsonapi-mode'), mode);
    t.same(jsonApiProblems(reply), expected[mode], `${mode}: exactly the documented defect`);
  }
  // dead-relationship-links is well-formed: its lie is where the links go.
  const dead = await call(port, '/jsonapi?mode=dead-relationship-links');
  const doc = JSON.parse(dead.text) as { data: { relationships: Record<string, { links: Record<string, string> }> }[] };
  const relationshipLinks = Object.values(doc.data[0]?.relationships ?? {}).flatMap((r) => Object.values(r.links));
  t.equal(relationshipLinks.length, 4, 'self and related for author and comments');
  for (const link of relationshipLinks) {
    t.equal((await call(port, sameHostTarget(link, '/jsonapi') as string)).res.status, 404, `${link}: 404 on the chaos host`);
  }
  const twinArticles = JSON.parse((await call(controlPort, '/jsonapi')).text) as Record<string, unknown>;
  t.same({ ...JSON.parse(dead.text), data: twinArticles.data }, twinArticles, 'only the relationship links differ from the twin');
  const shape = JSON.parse((await call(port, '/jsonapi?mode=data-shape-confusion')).text) as Record<string, unknown>;
  t.ok(Array.isArray(twinArticles.data), 'the twin\'s collection is an array');
  t.same(shape, { ...twinArticles, data: (twinArticles.data as unknown[])[0] }, 'data-shape-confusion: the collection\'s one resource as a bare object');
  for (const [mode, member] of [['missing-id', 'id'], ['type-missing', 'type']] as const) {
    const doc = JSON.parse((await call(port, `/jsonapi?mode=${mode}`)).text) as { data: Record<string, unknown>[] };
    const { [member]: _gone, ...rest } = (twinArticles.data as Record<string, unknown>[])[0] as Record<string, unknown>;
    t.same(doc.data, [rest], `${mode}: the twin's article without ${member}`);
  }
});

t.test('RFC 9457: the twin is a valid problem whose type resolves; each chaos mode breaks exactly its rule', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const twin = await call(controlPort, '/problem-details');
  t.equal(twin.res.status, 403);
  t.equal(twin.res.header('content-type'), 'application/problem+json');
  t.same(problemProblems(twin), [], 'valid problem details');
  const problem = JSON.parse(twin.text) as Record<string, unknown>;
  t.match(problem, { type: String, title: String, status: 403, detail: String, instance: /^urn:uuid:/, balance: 30, cost: 50 });
  const typeTarget = sameHostTarget(problem.type as string, '/problem-details');
  t.ok(typeTarget, 'type is on the same host');
  const described = await call(controlPort, typeTarget as string);
  t.equal(described.res.status, 200, 'type resolves');
  t.match(described.res.header('content-type'), /^text\/html/, 'to a human-readable page');
  t.same(problemProblems(await call(controlPort, '/problem-details?mode=status-mismatch')), [], 'the twin accepts a mode and stays valid');

  const expected: Record<(typeof PROBLEM_MODES)[number], string[]> = {
    'wrong-media-type': ['media type application/json'],
    'status-mismatch': ['status member 403 vs HTTP 200', 'HTTP 200 is not an error'],
    'relative-type-404': [],
    'shadowed-members': ['member status repeated', 'member title repeated', 'member type repeated', 'status is not a number'],
    'drop-required': ['no type', 'no title', 'no status'],
    'status-type-shift': ['status is not a number'],
    'instance-malformed': ['instance is not a URI reference', 'instance has two fragments'],
  };
  for (const mode of PROBLEM_MODES) {
    const reply = await call(port, `/problem-details?mode=${mode}`);
    t.equal(reply.res.header('x-chaos-problem-mode'), mode);
    t.same(problemProblems(reply), expected[mode], `${mode}: exactly the documented defect`);
  }
  const relative = await call(port, '/problem-details?mode=relative-type-404');
  const relativeType = (JSON.parse(relative.text) as { type: string }).type;
  t.equal(relativeType, '/problems/out-of-credit');
  t.equal((await call(port, sameHostTarget(relativeType, '/problem-details') as string)).res.status, 404, 'its type 404s on the chaos host');
  const shadowed = await call(port, '/problem-details?mode=shadowed-members');
  t.match(JSON.parse(shadowed.text), { status: 'ok', title: 'Success' }, 'a last-wins parser sees the shadows');
  t.ok(shadowed.text.startsWith(twin.text.trimEnd().slice(0, -1)), 'the shadows follow the twin\'s own members');
  const shifted = await call(port, '/problem-details?mode=status-type-shift');
  t.equal(shifted.res.status, 403, 'status-type-shift: HTTP 403');
  t.same(JSON.parse(shifted.text), { ...problem, status: '403' }, 'status-type-shift: the twin\'s problem, status "403"');
  const { type: _t, title: _ti, status: _s, ...rest } = problem;
  t.same(JSON.parse((await call(port, '/problem-details?mode=drop-required')).text), rest, 'drop-required: the rest of the twin\'s members');
});

t.test('/json?mode=trailing-garbage: a valid document, then garbage; Content-Length covers all of it', async (t) => {
  const { port } = await startChaos(t);
  const reply = await call(port, '/json?mode=trailing-garbage');
  t.equal(reply.res.status, 200);
  t.equal(reply.res.header('content-type'), 'application/json');
  t.equal(reply.res.header('x-chaos-json-mode'), 'trailing-garbage');
  const newline = reply.body.indexOf('\n');
  const document = reply.body.subarray(0, newline + 1);
  t.same(reply.body.subarray(newline + 1), JSON_TRAILING_GARBAGE, 'exactly the garbage bytes after the newline');
  t.equal(Number(reply.res.header('content-length')), document.length + JSON_TRAILING_GARBAGE.length, 'Content-Length counts the garbage');
  const parsed = JSON.parse(document.toString('utf8')) as Record<string, unknown>;
  const control = JSON.parse(jsonControlBody('trailing-garbage').toString('utf8')) as Record<string, unknown>;
  t.same({ ...parsed, valid: true, defects: [] }, control, 'the document is the control one');
  t.throws(() => JSON.parse(reply.text), SyntaxError, 'the whole body does not parse');
});

t.test('bad parameters: 400 with the usual body on both hosts', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const bad = ['/cloudevents?mode=bogus', '/cloudevents?binary=maybe', '/jsonapi?mode=bogus', '/problem-details?mode=bogus', '/json?mode=garbage'];
  for (const p of [port, controlPort]) {
    for (const path of bad) {
      const reply = await call(p, path);
      t.equal(reply.res.status, 400, `${path}: 400`);
      t.match(JSON.parse(reply.text), { error: 'invalid_parameter' });
      t.notOk(reply.res.headerLines.some(([n]) => /^x-chaos-(?!origin|counterpart)/i.test(n)), `${path}: no chaos header`);
    }
  }
  for (const path of ['/jsonapi?doc=bogus', '/problem-details?describe=maybe']) t.equal((await call(controlPort, path)).res.status, 400, `${path}: 400`);
});
