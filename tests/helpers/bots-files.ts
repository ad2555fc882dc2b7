// Shared by the bots-host file tests (crawler-files, app-linking,
// federated-identity and site-trust .test.ts): control and bots run with
// public URLs naming their real addresses, so the links a lie points at (dead,
// looping, cross-host) are followed for real; and every mode of every file of
// a category is checked against its catalog entry and the category's checks.
import type { Test } from 'tap';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from './raw.js';
import { startLinkedHosts } from './servers.js';

export interface Got {
  readonly res: ParsedResponse;
  readonly body: Buffer;
  readonly text: string;
}

export const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
export const mediaType = (r: Got): string => (r.res.header('content-type') ?? '').split(';')[0] as string;
export const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));

export type Check = (t: Test, r: Got) => unknown;

/** Every endpoint → every mode → what its lie looks like on the wire, in catalog mode order. */
export type Checks = Readonly<Record<string, Readonly<Record<string, Check>>>>;

/** Top-level keys whose values differ between two documents (missing on either side included), sorted. */
export function differingKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}
export const mentionsControl = (value: unknown): boolean => /control|twin|well-formed/i.test(JSON.stringify(value));

export interface CatalogEndpoint {
  id: string;
  path: string;
  counterpart: string;
  params: { name: string; default?: unknown; accepted: string | string[] }[];
}
export interface Catalog {
  banner: string;
  endpoint_count: number;
  category_count: number;
  categories: { name: string; count: number; endpoints: CatalogEndpoint[] }[];
}

/** Starts the two hosts and reads the bots catalog; the readers and the per-mode tests are bound to them. */
export async function startBotsFiles(t: Test) {
  const { config, control, bots } = await startLinkedHosts(t);
  const C = config.urls.control;
  const B = config.urls.bots;
  const ACCOUNT = `acct:bots@${new URL(B).hostname}`;

  async function rawGet(port: number, target: string): Promise<Got> {
    const result = await rawExchange(port, get(target), { until: completeByLength });
    const res = parseHead(result.data);
    const body = res.rest.subarray(0, Number(res.header('content-length')));
    return { res, body, text: body.toString('utf8') };
  }

  /** Follows an absolute URL on one of the two running hosts, without following redirects. */
  async function follow(url: string): Promise<Got> {
    const u = new URL(url);
    const port = u.origin === new URL(B).origin ? bots : u.origin === new URL(C).origin ? control : undefined;
    if (port === undefined) throw new Error(`${url} is on neither running host`);
    return rawGet(port, u.pathname + u.search);
  }

  const status = async (url: string): Promise<number> => (await follow(url)).res.status;

  /** Extra query each endpoint needs besides `mode`. */
  const BASE_QUERY: Readonly<Record<string, string>> = {
    '/icon.png': 'size=192&',
    '/.well-known/webfinger': `resource=${encodeURIComponent(ACCOUNT)}&`,
  };

  /** The control twin each bots file names, when it is not the same path. */
  const TWIN: Readonly<Record<string, string>> = { '/security.txt': '/.well-known/security.txt' };

  /** The query the counterpart keeps from BASE_QUERY: what the control twin understands, never `mode`. */
  const TWIN_QUERY: Readonly<Record<string, string>> = {
    '/icon.png': '?size=192',
    '/.well-known/webfinger': `?resource=${encodeURIComponent(ACCOUNT)}`,
  };

  const catalog = JSON.parse((await rawExchange(bots, get('/', { Accept: 'application/json' }), { until: completeByLength }).then((r) => parseHead(r.data).rest)).toString()) as Catalog;
  const endpoints = catalog.categories.flatMap((c) => c.endpoints.map((e) => ({ ...e, category: c.name })));
  const modesOf = (e: CatalogEndpoint): string[] => e.params.find((p) => p.name === 'mode')?.accepted as string[];

  /** For the files of `category`: that `CHECKS` covers every mode, then every mode of each file against its check. */
  function modeTests(t: Test, category: string, CHECKS: Checks): void {
    const inCategory = endpoints.filter((e) => e.category === category);
    t.test('every mode of every file has a check, in catalog order, the first being the default', async (t) => {
      t.same(inCategory.map((e) => e.path).sort(), Object.keys(CHECKS).sort());
      for (const e of inCategory) {
        const modes = modesOf(e);
        t.same(modes, Object.keys(CHECKS[e.path] ?? {}), `${e.path} modes`);
        t.equal(e.params.find((p) => p.name === 'mode')?.default, modes[0], `${e.path} default`);
        t.ok(modes.length >= 3, `${e.path} has several modes`);
      }
    });

    for (const e of inCategory) {
      t.test(`${e.path} (${e.category})`, async (t) => {
        const base = BASE_QUERY[e.path] ?? '';
        for (const mode of modesOf(e)) {
          await t.test(mode, async (t) => {
            const r = await rawGet(bots, `${e.path}?${base}mode=${mode}`);
            t.ok([200, 301, 302].includes(r.res.status), `status ${r.res.status}`);
            t.equal(r.res.header('x-chaos-category'), e.category);
            t.equal(r.res.header('x-chaos-endpoint'), e.path);
            t.equal(r.res.header('x-chaos-mode'), mode);
            t.ok(r.res.header('x-chaos-file'), 'names the file');
            t.ok((r.res.header('x-chaos-lie') ?? '').length > 10, 'states the lie');
            t.equal(r.res.header('x-chaos-counterpart'), C + (TWIN[e.path] ?? e.path) + (TWIN_QUERY[e.path] ?? ''), 'the twin, with the query it understands');
            t.equal(Number(r.res.header('content-length')), r.body.length, 'an honest Content-Length');
            await (CHECKS[e.path]?.[mode] as Check)(t, r);
          });
        }

        await t.test('no mode: the first mode, byte for byte', async (t) => {
          const [first] = modesOf(e);
          const implicit = await rawGet(bots, `${e.path}${base ? `?${base.slice(0, -1)}` : ''}`);
          const explicit = await rawGet(bots, `${e.path}?${base}mode=${first}`);
          t.equal(implicit.res.header('x-chaos-mode'), first);
          t.ok(implicit.body.equals(explicit.body), 'same bytes');
          t.equal(implicit.res.status, explicit.res.status);
        });

        await t.test('unknown mode: 400 with the accepted modes, no X-Chaos-*', async (t) => {
          const r = await rawGet(bots, `${e.path}?${base}mode=nope`);
          t.equal(r.res.status, 400);
          const error = JSON.parse(r.text);
          t.equal(error.param, 'mode');
          t.equal(error.requested, 'nope');
          t.same(error.accepted, modesOf(e));
          t.notOk(r.res.headerLines.some(([name]) => /^x-chaos-/i.test(name)), 'a real error');
        });
      });
    }
  }

  return { config, control, bots, C, B, ACCOUNT, rawGet, follow, status, TWIN, catalog, endpoints, modeTests };
}
