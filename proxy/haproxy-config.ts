// The front door's configuration (DESIGN §1), generated from the stack's plan
// so host names, ports, timeouts and the per-client cap come from the same
// settings the services use. `proxy/haproxy.cfg` is this rendering for the
// defaults, kept for reading; `make up` writes its own with the real ports.
//
//   :FRONT_PORT fe_edge (mode tcp) ── first Host = chaos name ──► be_chaos (tcp, PROXY v2) ──► chaos ×N
//                         └─ anything else: switch-mode http (X-Forwarded-For), then per request
//                              ├─ control, hub, identity, agents ─► be_control ×N
//                              ├─ bots ───────────────────────────► be_bots ×N
//                              └─ unknown Host ───────────────────► 421
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface EdgePlan {
  /** Address and port of the one public listener. */
  readonly bindAddress: string;
  readonly frontPort: number;
  /** Private listener for HAProxy's Prometheus exporter (/metrics) and stats page (/stats); 0: none. */
  readonly adminPort: number;
  /** Host names (no port) routed to each service; the first of control's is what its health check names. */
  readonly hosts: { readonly chaos: string; readonly control: readonly string[]; readonly bots: string };
  /**
   * Where the replicas are: ports on the loopback (the local stack), or a DNS
   * name each that resolves to every replica (compose, Kubernetes), found
   * through the system resolver and kept up to date as replicas come and go.
   */
  readonly replicas: { readonly chaos: Replicas; readonly control: Replicas; readonly bots: Replicas };
  /** Address the admin frontend binds: the loopback locally, every address in a container (Prometheus scrapes it). */
  readonly adminBind?: string;
  /**
   * Each replica's admin port, where HAProxy checks /readyz: in the same
   * order as the replica ports, or one port for every replica found by DNS.
   * A draining replica answers 503 there while it still serves, so HAProxy
   * stops sending it connections before it stops accepting them.
   */
  readonly checkPorts: { readonly chaos: readonly number[] | number; readonly control: readonly number[] | number; readonly bots: readonly number[] | number };
  /** MAX_RESPONSE_MS: the longest legitimate response, silences included; idle timeouts sit above it. */
  readonly maxResponseMs: number;
  /** FIRST_REQUEST_TIMEOUT_MS: how long a new connection may take to send its first request head. */
  readonly firstRequestTimeoutMs: number;
  /** MAX_CONNECTIONS_PER_IP: open connections one client address may hold at the edge (0: no cap). */
  readonly maxConnectionsPerIp: number;
  /** MAX_CONNECTIONS: connections the edge accepts at once. */
  readonly maxConnections: number;
  /** SHUTDOWN_GRACE_MS: a stopping HAProxy lets connections finish this long. */
  readonly shutdownGraceMs: number;
  /**
   * One log line per connection and per HTTP request (LOG_LEVEL=debug);
   * otherwise only errors and refusals. Either way a line names no client
   * address, query string or header value (DESIGN §10).
   */
  readonly logEveryRequest: boolean;
}

/** Loopback ports, or `{ dns: 'chaos:8081', max: 10 }`: up to `max` servers from the name's addresses. */
export type Replicas = readonly number[] | { readonly dns: string; readonly max: number };

/** Hosts route by name only: a Host with or without a port, in any case, is the same host. */
const HOST_FIELD = 'req.hdr(host),field(1,:),lower';
/** Health checks every second, down after two failures: a replica that stops accepting is out within ~2 s. */
const CHECK = 'inter 1s fall 2 rise 2';
/**
 * One line per connection or request, without the client's address, query or
 * headers: frontend, backend/server, wait/connect/total ms, bytes out, the
 * termination state, connection counts, then the HTTP status and path when
 * the connection was HTTP ("-" for the chaos host's byte stream).
 */
const LOG_FORMAT = '%ft %b/%s %Tw/%Tc/%Tt %B %ts %ac/%fc/%bc/%sc/%rc %[var(txn.status)] %[var(txn.path)]';
/** Readiness on each replica's admin port (plain HTTP there, no PROXY header). */
const READY_CHECK = ['  option httpchk', '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host admin', '  http-check expect status 200'];

function ms(value: number): string {
  return `${Math.ceil(value)}ms`;
}

/** A host name is a DNS name here: anything else would break the generated file. */
function checkHost(name: string): string {
  if (!/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(name)) throw new Error(`not a host name: ${JSON.stringify(name)}`);
  return name;
}

function servers(prefix: string, replicas: Replicas, checkPorts: readonly number[] | number): string[] {
  const checkPort = (i: number): number => {
    const port = typeof checkPorts === 'number' ? checkPorts : checkPorts[i];
    if (port === undefined) throw new Error(`no admin port for ${prefix}${i + 1}`);
    return port;
  };
  if ('dns' in replicas) {
    if (!/^[a-z0-9.-]+:\d{1,5}$/.test(replicas.dns)) throw new Error(`not a name:port: ${JSON.stringify(replicas.dns)}`);
    // Slots filled from DNS at run time: replicas that come and go are picked up without a reload.
    return [`  server-template ${prefix} ${replicas.max} ${replicas.dns} resolvers system init-addr none check port ${checkPort(0)}`];
  }
  if (replicas.length === 0) throw new Error(`no ${prefix} replica`);
  return replicas.map((port, i) => `  server ${prefix}${i + 1} 127.0.0.1:${port} check port ${checkPort(i)}`);
}

const usesDns = (plan: EdgePlan): boolean => Object.values(plan.replicas).some((r) => 'dns' in r);

export function renderHaproxyConfig(plan: EdgePlan): string {
  const chaos = checkHost(plan.hosts.chaos);
  const control = [...new Set(plan.hosts.control.map(checkHost))];
  const bots = checkHost(plan.hosts.bots);
  const known = [chaos, ...control, bots];
  if (new Set(known).size !== known.length) throw new Error(`a host name is routed to two services: ${known.join(', ')}`);
  const bind = plan.bindAddress.includes(':') ? `[${plan.bindAddress}]` : plan.bindAddress;
  // Idle timeouts above the longest silence a legitimate chaos response keeps
  // (it is bounded by MAX_RESPONSE_MS), so the edge never cuts a lie short.
  const idle = ms(plan.maxResponseMs + 10_000);
  const perIp = plan.maxConnectionsPerIp;
  const lines = [
    '# Generated by proxy/haproxy-config.ts — edit the generator, not this file.',
    '# HAProxy 2.6 (Debian). One public port; chaos in mode tcp (bytes untouched),',
    '# control, bots and the hub switched to mode http on the same frontend.',
    'global',
    '  log stderr format short local0 info',
    // No global maxconn: HAProxy derives it from the descriptor limit it is given.
    // A stopping HAProxy (SIGUSR1) lets responses finish, but not forever.
    `  hard-stop-after ${ms(plan.shutdownGraceMs + 5_000)}`,
    // Control's /header-flood twin sends up to 200 well-formed header lines.
    '  tune.http.maxhdr 256',
    ...(usesDns(plan)
      ? ['', '# Replica addresses from the container DNS (compose, Kubernetes).', 'resolvers system', '  parse-resolv-conf', '  hold valid 10s', '  accepted_payload_size 8192']
      : []),
    '',
    'defaults',
    '  log global',
    '  option dontlognull',
    '  timeout connect 5s',
    `  timeout client ${idle}`,
    `  timeout server ${idle}`,
    '  timeout client-fin 5s',
    '  timeout server-fin 5s',
    '  timeout queue 5s',
    // Slowloris at the HTTP hosts: a request head must arrive whole within this.
    `  timeout http-request ${ms(Math.max(plan.firstRequestTimeoutMs, 1_000) * 2)}`,
    '  timeout http-keep-alive 10s',
    // A replica that refuses the connection (stopping, restarting) is retried on another.
    '  retries 3',
    '  option redispatch 1',
    '',
    '# The one public port. A connection whose first request names the chaos',
    '# host is passed through byte for byte (the chaos replica checks Host on',
    '# every later request); any other becomes HTTP here and is routed request',
    '# by request, with no second frontend hop.',
    'frontend fe_edge',
    '  mode tcp',
    `  bind ${bind}:${plan.frontPort}`,
    `  maxconn ${plan.maxConnections}`,
    // The default tcplog and httplog formats carry the client address and the query string.
    `  log-format "${LOG_FORMAT}"`,
    ...(plan.logEveryRequest ? [] : ['  option dontlog-normal']),
    ...(perIp > 0
      ? [
          '  # The per-client cap (MAX_CONNECTIONS_PER_IP) and a connection-rate cap, before any replica sees the flood.',
          '  stick-table type ipv6 size 1m expire 60s store conn_cur,conn_rate(10s)',
          '  tcp-request connection track-sc0 src',
          `  tcp-request connection reject if { sc_conn_cur(0) gt ${perIp} }`,
          `  tcp-request connection reject if { sc_conn_rate(0) gt ${Math.max(100, perIp * 20)} }`,
        ]
      : []),
    '  # Wait for a whole first request head (slowloris: no longer than the first-request timeout).',
    `  tcp-request inspect-delay ${ms(plan.firstRequestTimeoutMs)}`,
    `  tcp-request content set-var(txn.host) ${HOST_FIELD} if HTTP`,
    `  tcp-request content accept if HTTP { var(txn.host) -m str ${chaos} }`,
    // Anything else, not HTTP at all included (HAProxy answers that 400), is HTTP from here on.
    '  tcp-request content switch-mode http',
    '  # Only HTTP streams run these (every request of a switched connection).',
    '  http-request set-var(txn.http) bool(true)',
    `  http-request set-var(txn.host) ${HOST_FIELD}`,
    '  http-request set-var(txn.path) path',
    '  # A client-sent X-Forwarded-For never reaches a replica: the one it gets names the real peer.',
    '  http-request del-header X-Forwarded-For',
    '  option forwardfor',
    '  http-after-response set-var(txn.status) status',
    // A later request on a switched connection that names the chaos host is misdirected: HTTP cannot go to a tcp backend.
    `  use_backend be_chaos if !{ var(txn.http) -m bool } { var(txn.host) -m str ${chaos} }`,
    `  use_backend be_control if { var(txn.host) -m str ${control.join(' ')} }`,
    `  use_backend be_bots if { var(txn.host) -m str ${bots} }`,
    '  default_backend be_misdirected',
    '',
    '# Chaos replicas get the connection byte for byte, the client address in a PROXY v2 header.',
    'backend be_chaos',
    '  mode tcp',
    '  balance leastconn',
    ...READY_CHECK,
    `  default-server send-proxy-v2 ${CHECK}`,
    ...servers('chaos', plan.replicas.chaos, plan.checkPorts.chaos),
    '',
    ...['control', 'bots'].flatMap((name) => [
      `backend be_${name}`,
      '  mode http',
      '  balance leastconn',
      ...READY_CHECK,
      `  default-server ${CHECK}`,
      ...servers(name, name === 'control' ? plan.replicas.control : plan.replicas.bots, name === 'control' ? plan.checkPorts.control : plan.checkPorts.bots),
      '',
    ]),
    'backend be_misdirected',
    '  mode http',
    '  http-request return status 421 content-type application/json ' +
      `lf-string "{\\"error\\":\\"misdirected_request\\",\\"reason\\":\\"no host %[var(txn.host),json(utf8s)] here; the hosts are ${known.join(', ')}\\"}\\n"`,
    ...(plan.adminPort > 0
      ? [
          '',
          "# HAProxy's own metrics and stats, on a private port only.",
          'frontend fe_admin',
          '  mode http',
          `  bind ${plan.adminBind ?? '127.0.0.1'}:${plan.adminPort}`,
          '  no log',
          '  http-request use-service prometheus-exporter if { path /metrics }',
          '  stats enable',
          '  stats uri /stats',
          '  stats refresh 5s',
        ]
      : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** A local plan: the defaults with two replicas on example loopback ports (the shape `make up` renders). */
export const EXAMPLE_PLAN: EdgePlan = {
  bindAddress: '127.0.0.1',
  frontPort: 8080,
  adminPort: 8404,
  hosts: { chaos: 'chaos.localhost', control: ['control.localhost', 'localhost', 'identity.localhost', 'agents.localhost'], bots: 'bots.localhost' },
  replicas: { chaos: [9101, 9102], control: [9201, 9202], bots: [9301, 9302] },
  checkPorts: { chaos: [9111, 9112], control: [9211, 9212], bots: [9311, 9312] },
  maxResponseMs: 120_000,
  firstRequestTimeoutMs: 5_000,
  maxConnectionsPerIp: 64,
  maxConnections: 20_000,
  shutdownGraceMs: 20_000,
  logEveryRequest: false,
};

/**
 * The plan `proxy/haproxy.cfg` is rendered from, the file the proxy image
 * (proxy/Dockerfile) bakes in for compose and Kubernetes: every address, the
 * replicas found by their service names (`chaos:8081`…) through DNS, the
 * admin frontend on every address of the container for Prometheus.
 */
export const CONTAINER_PLAN: EdgePlan = {
  ...EXAMPLE_PLAN,
  // The deployments give replicas MAX_RESPONSE_MS to drain; a stopping proxy waits as long.
  shutdownGraceMs: 120_000,
  bindAddress: '0.0.0.0',
  adminBind: '0.0.0.0',
  replicas: { chaos: { dns: 'chaos:8081', max: 16 }, control: { dns: 'control:8082', max: 16 }, bots: { dns: 'bots:8083', max: 16 } },
  checkPorts: { chaos: 9464, control: 9464, bots: 9464 },
};

export const EXAMPLE_FILE = fileURLToPath(new URL('../../proxy/haproxy.cfg', import.meta.url));

// `node dist/proxy/haproxy-config.js --write` refreshes proxy/haproxy.cfg.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = renderHaproxyConfig(CONTAINER_PLAN);
  if (process.argv.includes('--write')) writeFileSync(EXAMPLE_FILE, text);
  else process.stdout.write(text);
}
