// A chaos and a control process (serving the hub) on reserved loopback ports,
// with public URLs that really reach them, so an exam's step URLs work as a
// client would use them. Several stacks may share one store (replicas).
import { buildCatalog } from '../../shared/catalog/catalog.js';
import { createLogger } from '../../shared/config/log.js';
import type { Config } from '../../shared/config/config.js';
import { HttpService } from '../../shared/http/http-service.js';
import { MemoryStore } from '../../shared/store/memory.js';
import type { Store } from '../../shared/store/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChaosServer } from '../../services/chaos/server.js';
import { TlsListener } from '../../services/chaos/tls/listener.js';
import { serviceRegistries } from '../../services/registries.js';
import { TlsMaterial } from '../../shared/tls/material.js';
import { freePorts, testConfig } from './servers.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface ExamStack {
  readonly config: Config;
  /** http://localhost:<control port>: the hub's name on the control process. */
  readonly hub: string;
  readonly chaosPort: number;
  readonly controlPort: number;
  /** With `tls`: the chaos TLS listener's port, and the test root (PEM) a client trusts for it. */
  readonly tlsPort?: number;
  readonly tlsRoot?: string;
}

export interface ExamStackOptions {
  /** Serve TLS chaos too (a TLS_DIR of its own), so the profiles keep their `tls` steps. */
  readonly tls?: boolean;
}

export interface OpenedExam {
  readonly id: string;
  readonly profile: string;
  readonly expires_at: string;
  readonly steps: readonly { readonly name: string; readonly url: string; readonly what_a_good_client_does: string }[];
  /** Steps left out here, each with why (a TLS step where TLS is off). */
  readonly notes?: readonly string[];
  readonly report_url: string;
}

export interface ExamReportJson {
  readonly score: number;
  readonly passed: number;
  readonly steps: readonly { readonly name: string; readonly verdict: string; readonly observed: string; readonly expected: string; readonly why_it_matters: string }[];
}

/**
 * Starts both processes on `shared` (closed by whoever made it), or on a
 * store of their own closed at teardown. `env` adds to the
 * test configuration (RATE_LIMIT_GENERAL, EXAM_TTL_SECONDS…).
 */
export async function startExamStack(t: Teardown, shared?: Store, env: Readonly<Record<string, string>> = {}, options: ExamStackOptions = {}): Promise<ExamStack> {
  const store = shared ?? new MemoryStore();
  if (shared === undefined) t.teardown(() => store.close());
  const [chaosPort, controlPort, tlsPort] = (await freePorts(3)) as [number, number, number];
  const hub = `http://localhost:${controlPort}`;
  let tlsEnv: Record<string, string> = {};
  if (options.tls === true) {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-exam-tls-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    tlsEnv = { TLS_DIR: dir, CHAOS_TLS_PORT: String(tlsPort), PUBLIC_TLS_PORT: String(tlsPort) };
  }
  const config = testConfig({
    PUBLIC_BASE_URL: `http://127.0.0.1:${chaosPort}`,
    PUBLIC_CONTROL_URL: `http://127.0.0.1:${controlPort}`,
    PUBLIC_HUB_URL: hub,
    ...tlsEnv,
    ...env,
  });
  const registries = serviceRegistries();
  const hubCatalogs = [buildCatalog(registries.chaos, config), buildCatalog(registries.control, config), buildCatalog(registries.bots, config)];
  const chaos = new ChaosServer({ config, logger: createLogger('chaos', 'silent'), registry: registries.chaos, store });
  const control = new HttpService({ host: 'control', config, logger: createLogger('control', 'silent'), registry: registries.control, store, hubCatalogs, chaosRoutes: registries.chaos });
  t.teardown(async () => {
    await Promise.all([chaos.shutdown(0), control.shutdown(0)]);
  });
  await chaos.listen(chaosPort, '127.0.0.1');
  await control.listen(controlPort, '127.0.0.1');
  if (options.tls !== true) return { config, hub, chaosPort, controlPort };
  // The TLS listener hands its decrypted sockets to the same chaos server: its requests go through the same pipeline and recorder.
  const material = await TlsMaterial.load(config);
  const listener = new TlsListener(chaos, material, createLogger('chaos', 'silent'));
  await listener.listen(tlsPort, '127.0.0.1');
  t.teardown(() => listener.close());
  const root = await fetch(`${hub}/tls/root.pem`);
  return { config, hub, chaosPort, controlPort, tlsPort, tlsRoot: await root.text() };
}

/** POST /exam?profile=…: the 201's body. */
export async function openExam(hub: string, profile: string): Promise<OpenedExam> {
  const res = await fetch(`${hub}/exam?profile=${profile}`, { method: 'POST' });
  if (res.status !== 201) throw new Error(`POST /exam answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as OpenedExam;
}

export async function examReport(reportUrl: string): Promise<ExamReportJson> {
  const res = await fetch(reportUrl, { headers: { Accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`report answered ${res.status}`);
  return (await res.json()) as ExamReportJson;
}

/** Step name → verdict. */
export function verdicts(report: ExamReportJson): Record<string, string> {
  return Object.fromEntries(report.steps.map((s) => [s.name, s.verdict]));
}
