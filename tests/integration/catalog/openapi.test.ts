// /openapi.json on every host: served beside the catalog (not a registry
// endpoint), valid against the official OpenAPI 3.1 schema, and listing every
// endpoint of the registry with its methods, parameters and declared headers.
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import type { OpenApiDocument, OpenApiOperation, OpenApiParameter } from '../../../shared/catalog/openapi.js';
import { allowedMethods, type Registry } from '../../../shared/registry/registry.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';
import { serviceRegistries } from '../../../services/registries.js';

const registries = serviceRegistries();
const publicUrls = { chaos: 'http://chaos.test:8080', control: 'http://control.test:8080', bots: 'http://bots.test:8080' };

for (const host of ['chaos', 'control', 'bots'] as const) {
  t.test(`${host}: /openapi.json`, async (t) => {
    const config = testConfig();
    const port = host === 'chaos' ? (await startChaos(t, { config })).port : (await startHttp(t, host, config)).port;
    const ask = async (path: string, headers: Record<string, string> = {}, method = 'GET') =>
      parseHead((await rawExchange(port, get(path, headers, method), { until: completeByLength })).data);
    const registry = registries[host] as Registry<unknown>;

    const res = await ask('/openapi.json');
    t.equal(res.status, 200);
    t.equal(res.header('content-type'), 'application/json');
    t.equal(Number(res.header('content-length')), res.rest.length);
    t.same(res.headerLines.filter(([n]) => /^x-chaos-/i.test(n)), [], 'the document is not chaos');
    const doc = JSON.parse(res.rest.toString()) as OpenApiDocument;

    const validator = new Validator();
    const result = await validator.validate(JSON.parse(res.rest.toString()) as Record<string, unknown>);
    t.same(result.errors, undefined, 'no schema errors');
    t.ok(result.valid, 'valid against the official OpenAPI schema');
    t.equal(validator.version, '3.1');
    const broken = await new Validator().validate({ ...JSON.parse(res.rest.toString()), paths: { 'no-slash': {} } } as Record<string, unknown>);
    t.notOk(broken.valid, 'the validator does refuse a broken document');
    t.equal(doc.openapi, '3.1.0');
    t.same(doc.servers.map((s) => s.url), [publicUrls[host]], 'servers: the configured public URL');

    // Every registry endpoint, and nothing else.
    const ops: { path: string; method: string; op: OpenApiOperation }[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) ops.push({ path, method: method.toUpperCase(), op: op as OpenApiOperation });
    }
    const ids = ops.map((o) => o.op.operationId);
    t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    let expectedOps = 0;
    let aliasParams = 0;
    for (const e of registry.endpoints) {
      const methods = allowedMethods(e);
      if (e.methods?.includes('GET') ?? true) t.ok(methods.includes('HEAD'), `${e.id}: HEAD implied by GET`);
      for (const [aliasIndex, path] of [e.path, ...(e.aliases ?? [])].entries()) {
        const docPath = path.replace(/\{(\w+)\*\}/g, '{$1}');
        const item = doc.paths[docPath];
        if (!t.ok(item, `${host} ${path} is listed`) || !item) continue;
        t.same(Object.keys(item).map((m) => m.toUpperCase()).sort(), [...methods].sort(), `${path}: its methods`);
        expectedOps += methods.length;
        const first = item[(methods[0] as string).toLowerCase() as 'get'] as OpenApiOperation;
        if (aliasIndex === 0) t.equal(first.operationId, e.id, `${path}: operationId is the endpoint id`);
        for (const method of methods) {
          const op = item[method.toLowerCase() as 'get'] as OpenApiOperation;
          t.same(op.tags, [e.category], `${path} ${method}: tagged with its category`);
          t.equal(op.summary, e.summary);
          const params = new Map((op.parameters ?? []).map((p) => [p.name, p]));
          const specs = Object.entries(e.params).filter(([name, spec]) => spec.in !== 'path' || path.includes(`{${name}`));
          t.equal(params.size, specs.length, `${path} ${method}: every parameter (a path one where its path has the segment)`);
          for (const [name, spec] of specs) {
            const p = params.get(name) as OpenApiParameter;
            if (!t.ok(p, `${path}: parameter ${name}`)) continue;
            t.equal(p.in, spec.in);
            if (spec.in === 'path') {
              t.equal(p.required, true, 'path parameters are required');
              t.ok(docPath.includes(`{${name}}`), `${docPath} names {${name}}`);
              t.equal(p['x-rest'] === true, path.includes(`{${name}*}`), 'a rest segment says so');
            } else {
              t.equal(p.required, spec.required);
            }
            if (spec.min !== undefined) {
              t.equal(p.schema.minimum, spec.min, `${path} ${name}: minimum`);
              t.equal(p.schema.maximum, spec.max, `${path} ${name}: maximum`);
              t.equal(p.schema.type, spec.kind === 'int' ? 'integer' : 'number');
            }
            if (spec.default !== undefined && typeof spec.default !== 'object') t.equal(p.schema.default, spec.default, `${path} ${name}: default`);
            if (spec.kind === 'enum') {
              const aliases = Object.keys(spec.aliases ?? {});
              t.same(p.schema.enum, [...(spec.accepted as string[]), ...aliases], `${path} ${name}: enum, aliases included (the server accepts them)`);
              for (const [alias, value] of Object.entries(spec.aliases ?? {})) t.ok(p.description.includes(`${alias} (= ${value})`), `${path} ${name}: alias ${alias} described`);
              if (aliases.length > 0) aliasParams += 1;
            }
            if (spec.kind === 'boolean') t.equal(p.schema.type, 'boolean');
            if (spec.kind === 'list') {
              t.equal(p.schema.type, 'array');
              t.equal(p.explode, true, 'a repeatable parameter is exploded');
              t.equal(p.schema.maxItems, spec.maxItems);
            }
            if (spec.kind === 'string' && Array.isArray(spec.accepted)) {
              for (const form of spec.accepted as string[]) t.ok(p.description.includes(form), `${path} ${name}: grammar form ${form} described`);
            }
            if (spec.pattern !== undefined) {
              const pattern = p.schema.type === 'array' ? p.schema.items?.pattern : p.schema.pattern;
              t.equal(pattern, spec.pattern, `${path} ${name}: pattern`);
              t.doesNotThrow(() => new RegExp(spec.pattern as string, 'u'), 'the pattern is an ECMA regular expression');
            }
          }
          const headers = Object.keys(op.responses.default?.headers ?? {});
          t.same(headers, e.headers ?? [], `${path} ${method}: declared headers`);
        }
      }
    }
    t.equal(ops.length, expectedOps, 'no operation beyond the registry');
    if (host === 'bots') t.ok(aliasParams > 0, 'the bots host has parameters with aliases, and they were checked');
    // Every template segment is a declared path parameter (the schema does not check it).
    for (const { path, op } of ops) {
      for (const m of path.matchAll(/\{(\w+)\}/g)) {
        t.ok(op.parameters?.some((p) => p.in === 'path' && p.name === m[1]), `${path}: {${m[1]}} declared`);
      }
    }

    const again = await ask('/openapi.json');
    t.ok(again.rest.equals(res.rest), 'the same bytes each time');
    const head = parseHead((await rawExchange(port, get('/openapi.json', {}, 'HEAD'), { timeoutMs: 1000, until: (d) => d.includes('\r\n\r\n') })).data);
    t.equal(head.status, 200);
    t.equal(head.header('content-length'), res.header('content-length'), 'HEAD: the same length');
    t.equal(head.rest.length, 0, 'HEAD: no body');
    const post = await ask('/openapi.json', { 'Content-Length': '0' }, 'POST');
    t.equal(post.status, 405);
    t.equal(post.header('allow'), 'GET, HEAD');

    // Beside the catalog: linked from it, not counted in it.
    const catalog = JSON.parse((await ask('/', { Accept: 'application/json' })).rest.toString()) as { openapi: string; endpoint_count: number };
    t.equal(catalog.openapi, `${publicUrls[host]}/openapi.json`, 'the JSON catalog links it');
    t.equal(catalog.endpoint_count, registry.endpoints.length, 'and does not count it');
    t.notOk(registry.match('/openapi.json'), 'not a registry endpoint');
    const html = (await ask('/')).rest.toString();
    t.ok(html.includes('href="/openapi.json"'), 'the HTML catalog links it');
  });
}
