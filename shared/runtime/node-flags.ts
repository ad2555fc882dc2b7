// The V8 flags each service is tuned for. Every launcher passes them: the
// supervisor of `make up`, the image's entrypoint (deploy/entrypoint.sh, kept
// equal by tests/integration/stack/image-layout.test.ts) and the benchmarks. A
// service started without them still runs, and says so once at start-up.
//
// Chaos holds thousands of connections at once (/slow, /drip), and all of
// their state is young when a scavenge comes: with node's default young
// generation (semi-spaces growing to 16 MiB and more) one scavenge copied
// 9 MiB of live connections and stopped the loop for 25–45 ms, so a
// 2000-connection /slow burst answered p99 31–53 ms late. Semi-spaces of
// 2 MiB bound what one scavenge can find alive; one GC thread because a
// replica gets one CPU (its Kubernetes limit, the benchmarks' pinned core),
// where parallel GC helpers only take turns with the loop they are meant to
// spare. Measured in bench/README.md ("GC flags for held connections"): the
// burst's p99 fell to 7–9 ms, at a cost of 0–4 % of keep-alive req/s. Control
// and bots run with node's defaults: on bots a 2 MiB young generation cost
// 20 % of req/s.
// Still true on Node 24 (V8 13.6): the young generation is still scavenged by
// default (--minor-ms off) in semi-spaces that grow to 16 MiB, and the flag
// kept 7 MiB per 1000 held responses against 10.5 with the defaults (bench/README.md, issue 25).
import type { HostName } from '../config/config.js';

export const NODE_FLAGS: Readonly<Record<HostName, readonly string[]>> = {
  chaos: ['--max-semi-space-size=2', '--single-threaded-gc'],
  control: [],
  bots: [],
};

/** The flags of `service` this process was not started with. */
export function missingNodeFlags(service: HostName, execArgv: readonly string[] = process.execArgv): string[] {
  return NODE_FLAGS[service].filter((flag) => !execArgv.includes(flag));
}

const SERVICE_MAIN = /(?:^|\/)services\/(chaos|control|bots)\/main\.js$/;

/** The service whose main script `path` is (of this build or another's dist/), if it is one. */
export function serviceOfMain(path: string): HostName | undefined {
  return SERVICE_MAIN.exec(path)?.[1] as HostName | undefined;
}
