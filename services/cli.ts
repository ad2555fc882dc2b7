#!/usr/bin/env node
// `chaos-endpoint-service`, the package's bin: the embedded default (chaos,
// control and bots on direct ports, in-memory store unless REDIS_URL) in this
// one process, configured by the same environment variables as `make up`.
// SIGINT or SIGTERM drains (SHUTDOWN_GRACE_MS); a second one stops at once.
import { ConfigError } from '../shared/config/config.js';
import { processEnv } from '../shared/runtime/run.js';
import { startEmbedded, type RunningService } from './embed.js';
import { tlsInit } from './tls-init.js';

const NAME = 'chaos-endpoint-service';

// Every variable loadConfig reads is named here (tests/integration/stack/embed.test.ts checks it).
const HELP = `Usage: ${NAME} [--help]
       ${NAME} tls-init <dir>   make the TLS test PKI in <dir>/ca-v1 (for a read-only TLS_DIR; docs/deploy.md)

Runs the Chaos Endpoint Service's embedded default in one process: the chaos,
control and bots hosts on their own ports, with an in-memory store unless
REDIS_URL names a Redis. Ctrl-C (SIGINT) or SIGTERM lets in-flight responses
finish for up to SHUTDOWN_GRACE_MS, then exits; a second one stops at once.
From code: import { start } from '${NAME}' (free ports, limits off).

Environment (a bad value stops start-up with exit 2, naming the variable):
  CHAOS_PORT, CONTROL_PORT, BOTS_PORT   ports of the three hosts (8081, 8082, 8083; 0: a free one)
  BIND_ADDRESS              address to listen on (127.0.0.1; 0.0.0.0 for every address)
  REDIS_URL                 redis://host:port[/db], rediss://… or a unix socket: shared state (unset: in memory)
  REDIS_SENTINELS           host:port,… of Redis Sentinels, instead of REDIS_URL (with REDIS_SENTINEL_NAME)
  REDIS_SENTINEL_NAME       the master's name the sentinels watch
  REDIS_CLUSTER_NODES       host:port,… of Redis Cluster nodes, instead of REDIS_URL
  REDIS_PREFIX              prepended to every Redis key (chaos:)
  RATE_LIMIT_GENERAL        requests per client per 60 s, per host (60; 0: off)
  RATE_LIMIT_INFINITE       requests per client per 60 s under /infinite (10; 0: off)
  MAX_HELD_PER_IP           held responses open at once per client (32; 0: off)
  MAX_CONNECTIONS_PER_IP    open connections per client address (64; 0: off)
  MAX_CONNECTIONS           open connections per host (10000)
  FIRST_REQUEST_TIMEOUT_MS  a new connection that sends nothing is closed after this (5000)
  MAX_RESPONSE_MS           the longest any response may run (120000)
  MAX_CONNECTION_MS         a keep-alive connection's life (600000)
  HOLD_MS                   how long a lying Content-Length holds the connection (30000)
  WS_ECHO_BYTES_PER_SECOND  a WebSocket echo's bytes per second past a 1 MiB burst (262144); docs/websocket.md
  EXAM_TTL_SECONDS          how long a client exam lives (3600); docs/exam.md
  EXAM_MAX_OPEN_PER_IP      open exams per client address (12)
  TRUST_PROXY               proxies believed about the client: addresses, CIDRs or loopback (none)
  PUBLIC_BASE_URL, PUBLIC_CONTROL_URL, PUBLIC_BOTS_URL
                            URLs that bodies and headers name (each host's own address)
  PUBLIC_HUB_URL, PUBLIC_IDENTITY_URL, PUBLIC_AGENTS_URL
                            hub, identity and agents hosts, names of the control port
                            (http://localhost:<port>, http://identity.localhost:<port>, http://agents.localhost:<port>)
  COMPARE_VIA               host:port the hub's /compare connects to (each public URL's own)
  AI_BASE_URL, AI_API_KEY, AI_MODEL
                            an OpenAI-compatible chat-completions endpoint (unset: AI off, fallbacks served)
  AI_DAILY_BUDGET           model calls per UTC day (1000)
  AI_TIMEOUT_MS             bound on one model call, 1 to 10000 (10000)
  METRICS_PORT              admin port of chaos (/metrics, /healthz, /readyz); control and bots take the next two (0: off)
  LOG_LEVEL                 pino level of the JSON logs on stdout: fatal … trace, silent (info)
  SHUTDOWN_GRACE_MS         how long in-flight responses may finish after SIGINT or SIGTERM (20000)
  DRAIN_NOTICE_MS           with METRICS_PORT: /readyz says 503 this long before listeners close (0)
  TLS_DIR                   where the TLS chaos test root is kept (unset: no TLS); docs/tls.md
  CHAOS_TLS_PORT, TLS_BASE, PUBLIC_TLS_PORT
                            TLS chaos port (8444), host names <mode>.<TLS_BASE> (tls.localhost), the port /tls/hosts.json names
  CONTROL_TLS_PORT          control's twins over TLS at control.<TLS_BASE>, ALPN h2 (unset: off; make up: 8445); docs/http2.md
Read but unused here (make up's full stack): FRONT_PORT, FRONT_TLS_PORT, TLS_HANDSHAKES_PER_IP, REPLICAS, STACK, PATH.

Documentation: the package's README.md and docs/embedding.md.
`;

function bannerOf(service: RunningService): string {
  const { config } = service;
  return (
    `Chaos Endpoint Service is up (embedded default: ${config.redisUrl ? 'state shared on Redis' : 'in-memory store'}, direct ports, one process)\n` +
    `  chaos    ${service.chaosUrl}/\n  control  ${service.controlUrl}/\n  bots     ${service.botsUrl}/\n` +
    `  hub      ${service.hubUrl}/   (the catalog of all three hosts)\n` +
    (config.metricsPort > 0 ? `  admin    http://127.0.0.1:${config.metricsPort}…${config.metricsPort + 2} /metrics /healthz /readyz (chaos, control, bots)\n` : '') +
    `Try: curl -v ${service.chaosUrl}/truncate   (its twin: curl -v ${service.controlUrl}/truncate)\n` +
    'Ctrl-C stops it (a second Ctrl-C stops at once).\n'
  );
}

async function main(args: readonly string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  if (args[0] === 'tls-init') {
    await runTlsInit(args.slice(1));
    return;
  }
  if (args.length > 0) {
    process.stderr.write(`${NAME}: unknown argument ${JSON.stringify(args[0])}; settings are environment variables (${NAME} --help)\n`);
    process.exit(2);
  }
  let service: RunningService;
  try {
    service = await startEmbedded(processEnv());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${NAME}: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  process.stdout.write(bannerOf(service));
  let signals = 0;
  const stop = (signal: NodeJS.Signals): void => {
    if (++signals > 1) process.exit(1);
    const graceMs = service.config.shutdownGraceMs;
    process.stdout.write(`${signal}: stopping (in-flight responses get up to ${graceMs} ms; again stops at once)\n`);
    service.close(graceMs).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${NAME}: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function runTlsInit(args: readonly string[]): Promise<void> {
  const [dir] = args;
  if (dir === undefined || args.length > 1 || dir.startsWith('-')) {
    process.stderr.write(`Usage: ${NAME} tls-init <dir> (TLS_BASE names the hosts, tls.localhost by default)\n`);
    process.exit(2);
  }
  try {
    process.stdout.write(await tlsInit(dir, processEnv()));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${NAME} tls-init: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

void main(process.argv.slice(2));
