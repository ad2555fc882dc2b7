// Twins mirror their chaotic twin (docs/architecture.md, "Where things go"): a
// control file lives under the folder and slug of its chaos twin's file
// (control/endpoints/fault-injection/flaky.ts ↔ chaos/endpoints/fault-injection/flaky.ts),
// and a control crawler file under its bots twin's. The pairs come from the
// registries' counterpart relation (two endpoints that name each other); the
// files from the tree (each endpoint module's default export).
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { serviceRegistries } from '../../services/registries.js';
import type { HostName } from '../../shared/config/config.js';
import type { AnyEndpoint, Registry } from '../../shared/registry/registry.js';

const HOSTS: readonly HostName[] = ['chaos', 'control', 'bots'];
/** The host whose files name a pair's folder and slug: the one that misbehaves. */
const CHAOTIC: ReadonlySet<HostName> = new Set(['chaos', 'bots']);

type Endpoint = AnyEndpoint<unknown>;

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.js') && entry.name !== 'index.js' ? [path] : [];
  });
}

/**
 * Each definition's file under its host's endpoints/ folder, as `<folder>/<slug>`
 * (from the built tree), keyed by host and id (ids are unique per host; the
 * registry may hold a derived copy of a definition, as /random's).
 */
async function endpointFiles(host: HostName): Promise<Map<string, string>> {
  const root = fileURLToPath(new URL(`../../services/${host}/endpoints/`, import.meta.url));
  const files = new Map<string, string>();
  for (const path of modules(root)) {
    const module = (await import(pathToFileURL(path).href)) as { default?: { readonly id?: unknown } };
    if (typeof module.default?.id === 'string') files.set(`${host}:${module.default.id}`, relative(root, path).slice(0, -'.js'.length).split(sep).join('/'));
  }
  return files;
}

const registries = serviceRegistries() as unknown as Record<HostName, Registry<unknown>>;
const files = new Map<string, string>();
for (const host of HOSTS) for (const [key, file] of await endpointFiles(host)) files.set(key, file);
const fileOf = (host: HostName, endpoint: Endpoint): string | undefined => files.get(`${host}:${endpoint.id}`);

interface Pair {
  readonly chaotic: { readonly host: HostName; readonly endpoint: Endpoint };
  readonly twin: { readonly host: HostName; readonly endpoint: Endpoint };
}

/** Twins that name each other, each pair once, the chaotic end first. */
function mutualPairs(): Pair[] {
  const pairs: Pair[] = [];
  for (const host of HOSTS) {
    if (!CHAOTIC.has(host)) continue;
    for (const endpoint of registries[host].endpoints) {
      const twin = registries[host].twinOf(endpoint);
      if (twin === undefined || registries[twin.host].twinOf(twin.endpoint)?.endpoint !== endpoint) continue;
      pairs.push({ chaotic: { host, endpoint }, twin });
    }
  }
  return pairs;
}

t.test('every registered endpoint is the default export of a file of its host', async (t) => {
  for (const host of HOSTS) {
    for (const endpoint of registries[host].endpoints) t.ok(fileOf(host, endpoint) !== undefined, `${host} ${endpoint.id} has its own file`);
  }
});

t.test("every endpoint file is in its folder's list (a file left out would never be served)", async (t) => {
  for (const host of HOSTS) {
    const registered = new Set(registries[host].endpoints.map((e) => e.id));
    for (const key of files.keys()) {
      const [fileHost, id] = key.split(':') as [string, string];
      if (fileHost === host) t.ok(registered.has(id), `${host}/endpoints/${files.get(key)}.ts is registered`);
    }
  }
});

t.test('a chaotic endpoint file is named by its id', async (t) => {
  for (const host of CHAOTIC) {
    for (const endpoint of registries[host].endpoints) t.match(fileOf(host, endpoint), new RegExp(`(^|/)${endpoint.id}$`), `${host} ${endpoint.id}`);
  }
});

t.test("a twin's file mirrors its chaotic twin's: same folder, same slug", async (t) => {
  const pairs = mutualPairs();
  const chaosWithTwin = registries.chaos.endpoints.filter((e) => registries.chaos.twinOf(e) !== undefined).length;
  t.equal(pairs.filter((p) => p.chaotic.host === 'chaos').length, chaosWithTwin, 'every chaos endpoint with a twin is one end of a pair');
  t.ok(pairs.filter((p) => p.chaotic.host === 'bots').length >= 17, 'the bots files and their control twins pair up');
  for (const { chaotic, twin } of pairs) {
    const where = fileOf(chaotic.host, chaotic.endpoint);
    t.equal(
      `${twin.host}/endpoints/${fileOf(twin.host, twin.endpoint)}.ts`,
      `${twin.host}/endpoints/${where}.ts`,
      `${twin.host} ${twin.endpoint.id} mirrors ${chaotic.host}/endpoints/${where}.ts`,
    );
  }
});
