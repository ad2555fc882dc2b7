// Shared by the wire/ suite (tests/integration/wire/connections, framing and requests): short timeouts, an honest request,
// and a chaos server started with a test-only registry.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosContext } from '../../services/chaos/endpoint.js';
import { ChaosServer, type ChaosServerOptions } from '../../services/chaos/server.js';
import { createLogger } from '../../shared/config/log.js';
import type { Registry } from '../../shared/registry/registry.js';
import { MemoryStore } from '../../shared/store/memory.js';
import type { ParsedResponse } from './raw.js';
import { stopAtTeardown, testConfig } from './servers.js';

export type Options = Partial<Omit<ChaosServerOptions, 'config' | 'logger' | 'registry'>>;

/** Small timeouts so that every wait in these files is short. */
export const FAST: Options = { requestTimeoutMs: 2000, idleTimeoutMs: 2000, holdMs: 2000 };

export const HONEST = '/bytes?mode=wrong-content-type&n=16';

export function chaosHeaderNames(r: ParsedResponse): string[] {
  return r.headerLines.filter(([name]) => /^x-chaos-/i.test(name)).map(([name]) => name);
}

/** Polls `test` until it holds or `timeoutMs` passes (bounded). */
export async function eventually(test: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (test()) return true;
    await sleep(10);
  }
  return test();
}

/** A server with a test-only registry (handlers that throw, count or wait). */
export async function startWith(
  t: { teardown(fn: () => unknown): void },
  registry: Registry<ChaosContext>,
  options: Options = FAST,
): Promise<{ port: number; server: ChaosServer }> {
  const store = options.store ?? new MemoryStore();
  const server = new ChaosServer({ ...options, config: testConfig(), logger: createLogger('chaos', 'silent'), registry, store });
  stopAtTeardown(t, server, store);
  const port = await server.listen(0, '127.0.0.1');
  return { port, server };
}
