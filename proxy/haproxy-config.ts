// The front door's configuration (DESIGN §1), generated from the stack's plan
// so host names, ports, timeouts and the per-client cap come from the same
// settings the services use. `proxy/haproxy.cfg` is this rendering for the
// defaults, kept for reading; `make up` writes its own with the real ports.
//
//   :FRONT_PORT fe_edge (mode tcp) ── first Host = chaos name ──► be_chaos (tcp, PROXY v2) ──► chaos ×N
//        │                 ├─ another Host: switch-mode http (X-Forwarded-For), then per request
//        │                 │     ├─ control, hub, identity, agents ─► be_control ×N
//        │                 │     ├─ bots ───────────────────────────► be_bots ×N
//        │                 │     └─ unknown Host, no Host ──────────► 421 (JSON)
//        │                 ├─ nothing by FIRST_REQUEST_TIMEOUT_MS: closed, nothing sent
//        │                 └─ a head not whole yet, or not one HAProxy reads ─► be_slow (PROXY v2)
//        └─ fe_slow (abns, the same routing for REQUEST_HEAD_MS more); what it cannot route ─► be_chaos,
//           whose strict parser answers it (400, 408, 414, 431, 505) as it would a direct client
//   :FRONT_TLS_PORT fe_tls (mode tcp, TLS passed through by server name) ──► be_chaos_tls, be_control_tls (PROXY v2): haproxy-tls.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '../shared/registry/errors.js';
import { DEFAULT_LIMITS } from '../services/chaos/parser.js';
import { CHECK, checkHost, ms, READY_CHECK, servers, type Replicas } from './haproxy-parts.js';
import { tlsFrontDoor, type TlsEdgePlan } from './haproxy-tls.js';

export type { Replicas } from './haproxy-parts.js';

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
  /** The TLS port (FRONT_TLS_PORT) and the chaos replicas' TLS listeners behind it; absent: no TLS at the edge. */
  readonly tls?: TlsEdgePlan;
}

/** Hosts route by name only: a Host with or without a port, in any case, is the same host. */
const HOST_FIELD = 'req.hdr(host),field(1,:),lower';
/**
 * One line per connection or request, without the client's address, query or
 * headers: frontend, backend/server, wait/connect/total ms, bytes out, the
 * termination state, connection counts, then the HTTP status and path when
 * the connection was HTTP ("-" for the chaos host's byte stream).
 */
const LOG_FORMAT = '%ft %b/%s %Tw/%Tc/%Tt %B %ts %ac/%fc/%bc/%sc/%rc %[var(txn.status)] %[var(txn.path)]';

const usesDns = (plan: EdgePlan): boolean => Object.values(plan.replicas).some((r) => 'dns' in r);

/**
 * How long the chaos replica gives a request head from its first byte
 * (CONNECTION_DEFAULTS.requestTimeoutMs in services/chaos/server.ts; a test
 * holds the two equal). The edge waits FIRST_REQUEST_TIMEOUT_MS plus this for
 * a whole first head, so every head the replica would take is routed.
 */
export const REQUEST_HEAD_MS = 10_000;

/**
 * The largest first request head the chaos replica accepts: its request line,
 * its field block and the blank line (services/chaos/parser.ts).
 */
export const LARGEST_CHAOS_HEAD = DEFAULT_LIMITS.maxRequestLine + 2 + DEFAULT_LIMITS.maxHeaderBytes + 2 + 2;

/**
 * HAProxy's buffer. In mode tcp it reads a head as HTTP only when it fits in
 * about three quarters of one buffer (measured on 2.6: a request line of 8.1 KB,
 * or a 15.4 KB head, was not HTTP with the default 16 KiB, so those chaos
 * requests were misrouted); 36 KiB reads the largest head the chaos replica
 * accepts (24 KiB) with room to spare.
 */
export const BUFFER_BYTES = 36_864;

/** The edge's own failures, in the service's real-error shape ({error, reason}, no X-Chaos-*). */
export const EDGE_ERRORS: Readonly<Record<400 | 408 | 500 | 501 | 502 | 503 | 504, string>> = {
  400: 'the front door could not read this request as HTTP/1.1 (a malformed head, or one too large); this is a real error, not chaos',
  408: 'the request head did not arrive in time; this is a real error, not chaos',
  500: 'the front door failed; this is a real error, not chaos',
  501: 'the front door does not implement what this request asks for (a transfer coding or an upgrade); this is a real error, not chaos',
  502: 'a replica sent no valid response; this is a real error, not chaos',
  503: 'no replica is available; this is a real error, not chaos',
  504: 'a replica did not answer in time; this is a real error, not chaos',
};

/** The answer to a request that names no host (HTTP/1.0 without Host, or an empty one), before the list of hosts. */
export const HOST_REQUIRED = 'a Host header is required: the front door routes each request by its Host';

/** A double-quoted HAProxy argument (no log-format: `%` stays literal in `string`). */
function quoted(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** The JSON body of a real error, as shared/registry/errors.ts writes it. */
function errorBody(status: keyof typeof ERROR_CODES, reason: string): string {
  return `${JSON.stringify({ error: ERROR_CODES[status], reason })}\n`;
}

/** Per network (IPv4 /24, IPv6 /64): this many times the per-address cap. */
const NETWORK_FACTOR = 4;

/** The caps `renderHaproxyConfig` writes, from the plan (0 where the per-address cap is off). */
export function edgeCaps(plan: Pick<EdgePlan, 'maxConnectionsPerIp' | 'maxConnections'>): {
  perAddress: number;
  perNetwork: number;
  /** Above this many open connections the edge is crowded: a network already holding `perAddress` gets no more. */
  crowded: number;
  /** Connections that may wait past FIRST_REQUEST_TIMEOUT_MS for the rest of a first head. */
  slowHeads: number;
} {
  const perAddress = plan.maxConnectionsPerIp;
  return {
    perAddress,
    perNetwork: perAddress * NETWORK_FACTOR,
    crowded: perAddress > 0 ? Math.max(1, Math.floor((plan.maxConnections * 3) / 4)) : 0,
    slowHeads: Math.max(1, Math.floor(plan.maxConnections / 4)),
  };
}

/**
 * The tcp rules of a frontend that waits for a first request head. Rules
 * stop at the first one whose `HTTP` test still waits for bytes, so the later
 * ones only see a head that is whole (routed), one HAProxy will never read as
 * HTTP (invalid, or larger than its buffer), or the end of the wait.
 */
function firstHeadRules(chaos: string, lastResort: 'slow' | 'chaos', waitMs: number): string[] {
  return [
    `  tcp-request inspect-delay ${ms(waitMs)}`,
    `  tcp-request content set-var(txn.host) ${HOST_FIELD} if HTTP`,
    // A version the chaos replica refuses (prior-knowledge HTTP/2, HTTP/1.2…) is its to answer (505).
    `  tcp-request content set-var(txn.route) str(chaos) if HTTP !{ req.ver -m str 1.0 1.1 }`,
    `  tcp-request content set-var(txn.route) str(chaos) if HTTP { var(txn.host) -m str ${chaos} }`,
    '  tcp-request content accept if { var(txn.route) -m found }',
    '  tcp-request content switch-mode http if HTTP',
    ...(lastResort === 'slow'
      ? [
          // Nothing at all by the first-request timeout: closed with nothing sent (reached only then, see above).
          '  tcp-request content reject if { req.len 0 }',
          '  # A head not whole yet, or not HTTP to HAProxy: the slow-head frontend takes it from here.',
        ]
      : ['  # Still no head HAProxy can route: a chaos replica answers it as it would a direct client (400, 408, 414, 431, 505).']),
    `  tcp-request content set-var(txn.route) str(${lastResort})`,
  ];
}

/** Per-request routing of a connection switched to HTTP (the same on both frontends). */
function httpRouting(control: readonly string[], bots: string, lastResort: 'slow' | 'chaos'): string[] {
  return [
    '  # Only HTTP streams run these (every request of a switched connection).',
    '  http-request set-var(txn.http) bool(true)',
    `  http-request set-var(txn.host) ${HOST_FIELD}`,
    '  http-request set-var(txn.path) path',
    '  # A client-sent X-Forwarded-For never reaches a replica: the one it gets names the real peer.',
    '  http-request del-header X-Forwarded-For',
    '  option forwardfor',
    '  http-after-response set-var(txn.status) status',
    // A later request on a switched connection that names the chaos host is misdirected: HTTP cannot go to a tcp backend.
    '  use_backend be_chaos if !{ var(txn.http) -m bool } { var(txn.route) -m str chaos }',
    ...(lastResort === 'slow' ? ['  use_backend be_slow if !{ var(txn.http) -m bool } { var(txn.route) -m str slow }'] : []),
    `  use_backend be_control if { var(txn.host) -m str ${control.join(' ')} }`,
    `  use_backend be_bots if { var(txn.host) -m str ${bots} }`,
    '  default_backend be_misdirected',
  ];
}

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
  const caps = edgeCaps(plan);
  // The slow-head hop is an abstract socket, one namespace per machine: named by the public port, so stacks side by side do not collide.
  const slowSocket = `abns@chaos-edge-slow-${plan.frontPort}`;
  const logLines = [`  log-format "${LOG_FORMAT}"`, ...(plan.logEveryRequest ? [] : ['  option dontlog-normal'])];
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
    `  # Every first request head the chaos replica accepts (${LARGEST_CHAOS_HEAD} bytes at most) is read whole, then routed.`,
    `  tune.bufsize ${BUFFER_BYTES}`,
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
    // A WebSocket through the http frontend (control's twins) becomes a tunnel after its 101; it lives at most MAX_RESPONSE_MS.
    `  timeout tunnel ${idle}`,
    '  timeout queue 5s',
    // Slowloris at the HTTP hosts: a later request head must arrive whole within this.
    `  timeout http-request ${ms(Math.max(plan.firstRequestTimeoutMs, 1_000) * 2)}`,
    '  timeout http-keep-alive 10s',
    // A replica that refuses the connection (stopping, restarting) is retried on another.
    '  retries 3',
    '  option redispatch 1',
    "  # HAProxy's own answers in the service's real-error shape (docs/front-door.md).",
    ...Object.entries(EDGE_ERRORS).map(
      ([status, reason]) => `  http-error status ${status} content-type application/json string ${quoted(errorBody(Number(status) as keyof typeof EDGE_ERRORS, reason))}`,
    ),
    '',
    '# The one public port. A connection whose first request names the chaos',
    '# host is passed through byte for byte (the chaos replica checks Host on',
    '# every later request); any other becomes HTTP here and is routed request',
    '# by request, with no second frontend hop. Only a first head still coming',
    '# after FIRST_REQUEST_TIMEOUT_MS (or one HAProxy cannot read) takes one, to fe_slow.',
    'frontend fe_edge',
    '  mode tcp',
    `  bind ${bind}:${plan.frontPort}`,
    `  maxconn ${plan.maxConnections}`,
    // The default tcplog and httplog formats carry the client address and the query string.
    ...logLines,
    ...(caps.perAddress > 0
      ? [
          '  # Caps before any replica sees a flood: open connections per address (MAX_CONNECTIONS_PER_IP) and per',
          `  # network (IPv4 /24, IPv6 /64: ${NETWORK_FACTOR}× that), new ones per address; once the edge holds ${caps.crowded}`,
          '  # connections, a network already holding the per-address cap gets no more, so other clients find room.',
          '  stick-table type ipv6 size 1m expire 60s store conn_cur,conn_rate(10s)',
          '  tcp-request connection track-sc0 src',
          '  tcp-request connection track-sc1 src,ipmask(24,64) table st_networks',
          `  tcp-request connection reject if { sc_conn_cur(0) gt ${caps.perAddress} }`,
          `  tcp-request connection reject if { sc_conn_cur(1) gt ${caps.perNetwork} }`,
          `  tcp-request connection reject if { sc_conn_rate(0) gt ${Math.max(100, caps.perAddress * 20)} }`,
          `  tcp-request connection reject if { fe_conn gt ${caps.crowded} } { sc_conn_cur(1) gt ${caps.perAddress} }`,
        ]
      : []),
    '  # The first request head: routed as soon as it is whole (see firstHeadRules in the generator).',
    ...firstHeadRules(chaos, 'slow', plan.firstRequestTimeoutMs),
    ...httpRouting(control, bots, 'slow'),
    '',
    `# A first head still coming after FIRST_REQUEST_TIMEOUT_MS gets the chaos replica's head time (${ms(REQUEST_HEAD_MS)})`,
    "# more here, so a head typed by hand is routed as the replica would take it. Anything still unroutable goes to a",
    '# chaos replica, whose strict parser gives the answer a direct client gets.',
    'frontend fe_slow',
    '  mode tcp',
    `  bind ${slowSocket} accept-proxy`,
    `  maxconn ${caps.slowHeads}`,
    ...logLines,
    ...firstHeadRules(chaos, 'chaos', REQUEST_HEAD_MS),
    ...httpRouting(control, bots, 'chaos'),
    '',
    `# At most ${caps.slowHeads} connections wait for the rest of a first head; past that one is closed after 1 s in the queue.`,
    'backend be_slow',
    '  mode tcp',
    '  timeout queue 1s',
    `  server slow ${slowSocket} send-proxy-v2 maxconn ${caps.slowHeads}`,
    '',
    ...(caps.perAddress > 0 ? ['# Open connections per client network (IPv4 /24, IPv6 /64).', 'backend st_networks', '  stick-table type ipv6 size 1m expire 60s store conn_cur', ''] : []),
    '# Chaos replicas get the connection byte for byte, the client address in a PROXY v2 header.',
    'backend be_chaos',
    '  mode tcp',
    '  balance leastconn',
    ...READY_CHECK,
    `  default-server send-proxy-v2 ${CHECK}`,
    ...servers('chaos', plan.replicas.chaos, plan.checkPorts.chaos),
    '',
    ...(plan.tls === undefined
      ? []
      : tlsFrontDoor(plan.tls, {
          bind,
          maxConnections: plan.maxConnections,
          perAddress: caps.perAddress,
          perNetwork: caps.perNetwork,
          logEveryRequest: plan.logEveryRequest,
          chaosCheckPorts: plan.checkPorts.chaos,
          controlCheckPorts: plan.checkPorts.control,
        })),
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
    `  http-request return status 421 content-type application/json string ${quoted(errorBody(421, `${HOST_REQUIRED}; the hosts are ${known.join(', ')}`))} unless { var(txn.host) -m len gt 0 }`,
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
  // TLS passed through to every chaos replica's CHAOS_TLS_PORT, and control.tls.localhost to every control replica's
  // CONTROL_TLS_PORT (compose and Kubernetes set TLS_DIR and both ports: docs/deploy.md).
  tls: { frontPort: 8443, base: 'tls.localhost', replicas: { dns: 'chaos:8444', max: 16 }, handshakesPerIp: 100, controlReplicas: { dns: 'control:8445', max: 16 } },
};

export const EXAMPLE_FILE = fileURLToPath(new URL('../../proxy/haproxy.cfg', import.meta.url));

// `node dist/proxy/haproxy-config.js --write` refreshes proxy/haproxy.cfg.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = renderHaproxyConfig(CONTAINER_PLAN);
  if (process.argv.includes('--write')) writeFileSync(EXAMPLE_FILE, text);
  else process.stdout.write(text);
}
