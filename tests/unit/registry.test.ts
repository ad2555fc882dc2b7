import t from 'tap';
import { int, str } from '../../shared/primitives/params.js';
import { defineEndpoint, Registry, RegistryError, type AnyEndpoint } from '../../shared/registry/registry.js';
import { serviceRegistries } from '../../services/registries.js';

const define = defineEndpoint<null>();
const noop = (): void => {};
const ok = define({ id: 'one', path: '/one', category: 'latency', summary: 'first', params: {}, handle: noop });

function problems(endpoints: AnyEndpoint<null>[]): string[] {
  try {
    new Registry('chaos', endpoints);
    return [];
  } catch (error) {
    if (error instanceof RegistryError) return [...error.problems];
    throw error;
  }
}

t.test('the real registries are valid', async (t) => {
  t.ok(serviceRegistries().chaos.endpoints.length > 0);
  t.ok(serviceRegistries().control.endpoints.length > 0);
  t.doesNotThrow(() => serviceRegistries().bots);
});

t.test('a broken definition stops start-up, naming every problem', async (t) => {
  t.same(problems([ok]), []);
  t.match(problems([ok, { ...ok, path: '/two' }]), [/duplicate id/]);
  t.match(problems([ok, { ...ok, id: 'two' }]), [/duplicate path \/one/]);
  t.match(problems([{ ...ok, category: 'nonsense' }]), [/unknown category "nonsense"/]);
  t.match(problems([{ ...ok, id: 'Not_A_Slug' }]), [/kebab-case/]);
  t.match(problems([{ ...ok, params: { n: int({ min: 1, max: 5, default: 7 }) } }]), [/default 7 is outside/]);
  t.match(problems([{ ...ok, path: '/s/{code}' }]), [/\{code\} has no path parameter/]);
  t.match(problems([{ ...ok, path: '/a/{rest*}/b', params: { rest: str({ maxLength: 9, required: true, in: 'path' }) } }]), [
    /must be the last segment/,
  ]);
  t.match(problems([{ ...ok, summary: ' ' }]), [/summary is empty/]);
  t.match(problems([ok, { ...ok, id: 'alias', path: '/other', aliases: ['/one'] }]), [/duplicate path \/one/]);
  t.equal(problems([{ ...ok, id: 'x', category: 'bad' }, { ...ok, id: 'x' }]).length, 3, 'all problems at once: category, id, path');
});

t.test('routing: literal paths, templates and rest segments', async (t) => {
  const status = define({
    id: 'status',
    path: '/status/{code}',
    category: 'status',
    summary: 's',
    params: { code: int({ min: 100, max: 599, required: true, in: 'path' }) },
    handle: noop,
  });
  const tail = define({
    id: 'tail',
    path: '/deep/{kind}/{rest*}',
    category: 'payload',
    summary: 't',
    params: { kind: str({ maxLength: 9, required: true, in: 'path' }), rest: str({ maxLength: 99, required: true, in: 'path' }) },
    handle: noop,
  });
  const literal = define({ id: 'literal', path: '/status/teapot', category: 'status', summary: 'l', params: {}, handle: noop, aliases: ['/tea'] });
  const r = new Registry('chaos', [status, tail, literal, ok]);
  t.equal(r.match('/one')?.endpoint.id, 'one');
  t.equal(r.match('/status/teapot')?.endpoint.id, 'literal', 'literal wins over a template');
  t.equal(r.match('/tea')?.endpoint.id, 'literal', 'aliases route');
  t.same([...(r.match('/status/418')?.pathValues ?? [])], [['code', '418']]);
  t.equal(r.match('/status/'), undefined, 'an empty segment does not match');
  t.equal(r.match('/status/1/2'), undefined);
  t.same([...(r.match('/deep/a/b/c/d')?.pathValues ?? [])], [['kind', 'a'], ['rest', 'b/c/d']]);
  t.equal(r.match('/deep/a'), undefined);
  t.equal(r.match('/deep/a/'), undefined);
  t.equal(r.match('/nope'), undefined);
  t.same(
    r.byCategory().filter((g) => g.endpoints.length).map((g) => [g.category, g.endpoints.length]),
    [['latency', 1], ['status', 2], ['payload', 1]],
  );
});
