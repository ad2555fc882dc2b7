// The front door's TLS port (docs/front-door.md, docs/tls.md): HAProxy passes
// TLS through without terminating it. A `mode tcp` frontend on FRONT_TLS_PORT
// waits for the ClientHello, reads its server name (req.ssl_sni) and sends the
// connection, untouched, to a chaos replica's TLS listener with a PROXY v2
// header first, so the client's address reaches the replica's limits.
//
//   :FRONT_TLS_PORT fe_tls (mode tcp) ── a hello naming <mode>.TLS_BASE, or no name ──► be_chaos_tls (PROXY v2) ──► chaos ×N (CHAOS_TLS_PORT)
//        ├─ a hello naming control.TLS_BASE (the twins, ALPN h2) ──► be_control_tls (PROXY v2) ──► control ×N (CONTROL_TLS_PORT)
//        ├─ a hello naming another host: closed (no host of ours)
//        ├─ not a ClientHello (plain HTTP, garbage), or none by TLS_HELLO_WAIT_MS: closed
//        └─ over the per-address caps (open connections shared with the HTTP port, handshakes per 10 s): closed at accept
import { controlTlsHost } from '../shared/tls/modes.js';
import { CHECK, checkHost, ms, READY_CHECK, servers, type Replicas } from './haproxy-parts.js';

export interface TlsEdgePlan {
  /** FRONT_TLS_PORT: the public TLS listener. */
  readonly frontPort: number;
  /** TLS_BASE: the front door passes hellos naming `<mode>.<base>`, and hellos that name nothing. */
  readonly base: string;
  /** Each chaos replica's TLS listener (CHAOS_TLS_PORT), in the order of the plan's chaos check ports. */
  readonly replicas: Replicas;
  /** TLS_HANDSHAKES_PER_IP: new TLS connections one address may open per 10 s (0: no cap). */
  readonly handshakesPerIp: number;
  /** Each control replica's TLS listener (CONTROL_TLS_PORT), in the order of the plan's control check ports; absent: control.<base> is not routed. */
  readonly controlReplicas?: Replicas;
}

/**
 * How long the edge waits for a whole ClientHello: the chaos listener's
 * HANDSHAKE_TIMEOUT_MS (services/chaos/tls/listener.ts; a test holds the two
 * equal), so a stalled hello is closed at the same time direct or through it.
 */
export const TLS_HELLO_WAIT_MS = 10_000;

/** What the TLS frontend shares with the HTTP one: its bind, its limits and how it logs. */
export interface TlsFrontContext {
  readonly bind: string;
  readonly maxConnections: number;
  /** Per-address and per-network caps on open connections (0: off), counted in fe_edge's tables with the HTTP port's. */
  readonly perAddress: number;
  readonly perNetwork: number;
  readonly logEveryRequest: boolean;
  readonly chaosCheckPorts: readonly number[] | number;
  readonly controlCheckPorts: readonly number[] | number;
}

/**
 * One line per connection, as the HTTP port's: no client address, and no
 * server name either (a client may send any).
 */
const TLS_LOG_FORMAT = '%ft %b/%s %Tw/%Tc/%Tt %B %ts %ac/%fc/%bc/%sc/%rc';

/** The TLS frontend and its backend, appended to the generated configuration. */
export function tlsFrontDoor(tls: TlsEdgePlan, front: TlsFrontContext): string[] {
  const base = checkHost(tls.base);
  return [
    '# TLS passed through, never terminated here: routed by the hello\'s server name to the chaos',
    '# replicas\' TLS listeners, the client address in a PROXY v2 header (docs/front-door.md).',
    'frontend fe_tls',
    '  mode tcp',
    `  bind ${front.bind}:${tls.frontPort}`,
    `  maxconn ${front.maxConnections}`,
    `  log-format "${TLS_LOG_FORMAT}"`,
    ...(front.logEveryRequest ? [] : ['  option dontlog-normal']),
    ...(tls.handshakesPerIp > 0
      ? [
          '  # Handshakes per address (TLS_HANDSHAKES_PER_IP per 10 s): each connection here carries one, and a',
          '  # handshake costs the replica a signature. Refused attempts count too, so a flood stays refused.',
          '  stick-table type ipv6 size 1m expire 60s store conn_rate(10s)',
          '  tcp-request connection track-sc2 src',
          `  tcp-request connection reject if { sc_conn_rate(2) gt ${tls.handshakesPerIp} }`,
        ]
      : []),
    ...(front.perAddress > 0
      ? [
          '  # Open connections per address and per network, counted together with the HTTP port\'s.',
          '  tcp-request connection track-sc0 src table fe_edge',
          '  tcp-request connection track-sc1 src,ipmask(24,64) table st_networks',
          `  tcp-request connection reject if { sc_conn_cur(0) gt ${front.perAddress} }`,
          `  tcp-request connection reject if { sc_conn_cur(1) gt ${front.perNetwork} }`,
        ]
      : []),
    `  tcp-request inspect-delay ${ms(TLS_HELLO_WAIT_MS)}`,
    '  # Each rule waits while its answer may still change: first a ClientHello record (anything else is',
    '  # closed at once), then its server name once the record is whole (a name past the first record:',
    '  # none here, the replica reads it and decides).',
    '  tcp-request content reject if !{ req.ssl_hello_type 1 }',
    '  tcp-request content set-var(txn.sni) req.ssl_sni,lower if { req.ssl_sni -m found }',
    `  tcp-request content reject if { var(txn.sni) -m found } !{ var(txn.sni) -m end .${base} }`,
    '  tcp-request content accept',
    ...(tls.controlReplicas === undefined
      ? []
      : ['  # The control twins\' name (ALPN h2 or http/1.1): its replicas\' TLS listeners (docs/http2.md).', `  use_backend be_control_tls if { var(txn.sni) -m str ${checkHost(controlTlsHost(tls.base))} }`]),
    '  # What is left names a mode host of TLS_BASE, or nothing (the no-sni default): the listeners pick the mode.',
    '  default_backend be_chaos_tls',
    '',
    '# Chaos replicas\' TLS listeners, checked for readiness on their admin ports like be_chaos.',
    'backend be_chaos_tls',
    '  mode tcp',
    '  balance leastconn',
    ...READY_CHECK,
    `  default-server send-proxy-v2 ${CHECK}`,
    ...servers('chaos_tls', tls.replicas, front.chaosCheckPorts),
    '',
    ...(tls.controlReplicas === undefined
      ? []
      : [
          "# Control replicas' TLS listeners, checked on their admin ports like be_control.",
          'backend be_control_tls',
          '  mode tcp',
          '  balance leastconn',
          ...READY_CHECK,
          `  default-server send-proxy-v2 ${CHECK}`,
          ...servers('control_tls', tls.controlReplicas, front.controlCheckPorts),
          '',
        ]),
  ];
}

/** The TLS part of a local example plan (two replicas), for tests and docs. */
export const EXAMPLE_TLS: TlsEdgePlan = { frontPort: 8443, base: 'tls.localhost', replicas: [9121, 9122], handshakesPerIp: 100, controlReplicas: [9221, 9222] };
