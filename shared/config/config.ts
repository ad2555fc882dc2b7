// The one place that reads the environment (STYLE §7). `loadConfig` is pure:
// it takes an env object and returns a frozen Config, or throws ConfigError
// naming the variable and what it accepts.
import { isIP } from 'node:net';
import { delimiter } from 'node:path';
import { parseTrustList, TrustListError, type TrustList } from './trust.js';

export type HostName = 'chaos' | 'control' | 'bots';

export interface PublicUrls {
  readonly base: string;
  readonly control: string;
  readonly bots: string;
  readonly hub: string;
  readonly identity: string;
  readonly agents: string;
}

export interface Config {
  readonly bindAddress: string;
  readonly ports: { readonly chaos: number; readonly control: number; readonly bots: number; readonly front: number };
  /** Admin (metrics) port of the first process; 0 turns the admin listener off. */
  readonly metricsPort: number;
  readonly redisUrl: string | undefined;
  /** REDIS_SENTINELS + REDIS_SENTINEL_NAME: the master is found through these sentinels (instead of REDIS_URL). */
  readonly redisSentinel: { readonly sentinels: readonly HostPort[]; readonly name: string } | undefined;
  /** REDIS_CLUSTER_NODES: seed nodes of a Redis Cluster (instead of REDIS_URL). */
  readonly redisClusterNodes: readonly HostPort[] | undefined;
  /** Prepended to every Redis key (REDIS_PREFIX, default `chaos:`), so several deployments can share one Redis. */
  readonly redisPrefix: string;
  readonly rateLimit: { readonly general: number; readonly infinite: number };
  /** TRUST_PROXY: the peers whose PROXY v2 header (chaos) or X-Forwarded-For (control, bots) is believed; empty by default. */
  readonly trustProxy: TrustList;
  readonly urls: PublicUrls;
  readonly ai: {
    readonly baseUrl: string | undefined;
    readonly apiKey: string | undefined;
    readonly model: string | undefined;
    readonly dailyBudget: number;
    /** Upper bound of one model call, answer included (AI_TIMEOUT_MS, at most the spec's 10 s). */
    readonly timeoutMs: number;
  };
  readonly logLevel: LogLevel;
  /** How long in-flight responses may run after SIGTERM before connections are cut. */
  readonly shutdownGraceMs: number;
  /** After SIGTERM, how long the process keeps accepting while /readyz says 503, so a balancer stops routing to it first (DRAIN_NOTICE_MS). */
  readonly drainNoticeMs: number;
  /** The longest any single response may run (MAX_RESPONSE_MS): trickling endpoints fit their schedule into it. */
  readonly maxResponseMs: number;
  /** A keep-alive connection's life (MAX_CONNECTION_MS): the first response that starts after it says Connection: close. */
  readonly maxConnectionMs: number;
  /** Open connections one process accepts at once (MAX_CONNECTIONS): well under its descriptor limit. */
  readonly maxConnections: number;
  /** Open connections one client address may hold on one process (MAX_CONNECTIONS_PER_IP; 0: no cap). */
  readonly maxConnectionsPerIp: number;
  /** A new connection that sends nothing is closed after this (FIRST_REQUEST_TIMEOUT_MS), sooner than an idle keep-alive one. */
  readonly firstRequestTimeoutMs: number;
  /** How long the chaos host holds a connection whose response promised bytes that never come (HOLD_MS). */
  readonly holdMs: number;
  /** Responses of holding endpoints one client may have open at once, across replicas (MAX_HELD_PER_IP; 0: no cap). */
  readonly maxHeldPerIp: number;
  /** How long a client exam and its recordings live from its creation (EXAM_TTL_SECONDS, docs/exam.md). */
  readonly examTtlMs: number;
  /** Exams one client address may have open at once, across replicas (EXAM_MAX_OPEN_PER_IP). */
  readonly examMaxOpenPerIp: number;
  /** Bytes a WebSocket's echo sends back per second past a 1 MiB burst, chaos and twin (WS_ECHO_BYTES_PER_SECOND): no free reflector. */
  readonly wsEchoBytesPerSecond: number;
  /** What `make up` runs (STACK): the full stack behind HAProxy, the embedded default, or `auto` (full when its tools are installed). */
  readonly stack: StackMode;
  /** Replicas of each service in the full stack (REPLICAS). */
  readonly replicas: number;
  /**
   * Where the hub's /compare connects for both of its fetches (COMPARE_VIA,
   * host:port), sending each public URL's Host as usual; undefined: each
   * public URL's own host and port (`*.localhost` on the loopback).
   */
  readonly compareVia: HostPort | undefined;
  /** Directories `make up` looks in for haproxy, redis-server and prometheus (PATH), in order. */
  readonly programPath: readonly string[];
  readonly tls: TlsConfig;
}

/** TLS chaos (docs/tls.md): its listener runs only where TLS_DIR names the directory that keeps the test root. */
export interface TlsConfig {
  /** TLS_DIR: the test root, intermediate and client CA (files 0600), shared by replicas; undefined: no TLS. */
  readonly dir: string | undefined;
  /** CHAOS_TLS_PORT (8444): the chaos process's TLS listener. */
  readonly port: number;
  /** PUBLIC_TLS_PORT: the port /tls/hosts.json names (default CHAOS_TLS_PORT; the full stack's front TLS port). */
  readonly publicPort: number;
  /** FRONT_TLS_PORT (8443): the full stack's front door for TLS, passed through to the replicas by SNI. */
  readonly frontPort: number;
  /** TLS_HANDSHAKES_PER_IP (100): new TLS connections one client address may open per 10 s at the front door (0: no cap). */
  readonly handshakesPerIp: number;
  /** TLS_BASE (tls.localhost): mode hosts are `<mode>.<base>`; the root is name-constrained to it. */
  readonly base: string;
  /** CONTROL_TLS_PORT (unset: off; `make up` sets 8445): the control process's TLS listener for its twins, `control.<base>` (ALPN h2 and http/1.1). */
  readonly controlPort: number | undefined;
}

export interface HostPort {
  /** A host name or an IP address (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
}

export const STACK_MODES = ['auto', 'full', 'embedded'] as const;
export type StackMode = (typeof STACK_MODES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  readonly code = 'ERR_CHAOS_CONFIG';
  constructor(
    readonly variable: string,
    readonly accepted: string,
    readonly value: string,
  ) {
    super(`${variable}=${JSON.stringify(value)} is not valid: expected ${accepted}`);
    this.name = 'ConfigError';
  }
}

/** The environment, or an object of the same shape: variable name → value. */
export type Env = Readonly<Record<string, string | undefined>>;

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  return value;
}

function readUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'an absolute http(s) URL such as http://chaos.localhost:8080', raw);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.pathname !== '/' || parsed.search) {
    throw new ConfigError(name, 'an absolute http(s) URL with no path or query, such as http://chaos.localhost:8080', raw);
  }
  // Normalise to scheme://authority with no trailing slash, so paths append cleanly.
  return `${parsed.protocol}//${parsed.host}`;
}

/** An OpenAI-compatible API root such as https://api.openai.com/v1 (a path is allowed; `/chat/completions` is appended). */
function readApiBase(env: Env, name: string): string | undefined {
  const raw = readOptional(env, name);
  if (raw === undefined) return undefined;
  const accepted = 'an absolute http(s) URL with no query, such as https://api.openai.com/v1, or unset to turn AI mode off';
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, accepted, raw);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search || parsed.hash) {
    throw new ConfigError(name, accepted, raw);
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
}

/**
 * Where the shared store lives (DESIGN §7): redis://[user:password@]host[:port][/db],
 * rediss:// (TLS), or a unix socket as an absolute path or unix:///path. Unset:
 * the in-memory store. Parsed here so a typo stops start-up instead of
 * silently running degraded; the value may hold a password, so the error
 * shows only its scheme.
 */
function readRedisUrl(env: Env, name: string): string | undefined {
  const raw = readOptional(env, name);
  if (raw === undefined) return undefined;
  const accepted = 'redis://host:port[/db], rediss://host:port[/db], a unix socket (/path/to/redis.sock or unix:///path/to/redis.sock), or unset for the in-memory store';
  const refuse = (): never => {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(raw)?.[0];
    throw new ConfigError(name, accepted, scheme ? `${scheme}…` : raw.length > 64 ? `${raw.slice(0, 16)}…` : raw);
  };
  if (/\s/.test(raw)) refuse();
  if (raw.startsWith('/')) return raw.startsWith('//') ? refuse() : raw;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return refuse();
  }
  if (parsed.protocol === 'unix:') {
    return parsed.hostname === '' && parsed.pathname.length > 1 && !parsed.search ? raw : refuse();
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return refuse();
  if (parsed.hostname === '' || !/^\/?(\d{1,2})?$/.test(parsed.pathname)) return refuse();
  return raw;
}

/**
 * host:port, such as haproxy:8080 or [fd00::1]:8080: an address to connect
 * to, so a typo stops start-up instead of every compare failing to connect.
 */
function readHostPort(env: Env, name: string): HostPort | undefined {
  const raw = readOptional(env, name);
  if (raw === undefined) return undefined;
  const accepted = 'host:port (a host name or IP address and a port from 1 to 65535, such as haproxy:8080 or [::1]:8080), or unset';
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)):(\d{1,5})$/.exec(raw);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (host === undefined || !(port >= 1 && port <= 65535)) throw new ConfigError(name, accepted, raw);
  if (m?.[1] !== undefined && isIP(host) !== 6) throw new ConfigError(name, accepted, raw);
  return Object.freeze({ host, port });
}

/** A comma-separated list of host:port (REDIS_SENTINELS, REDIS_CLUSTER_NODES), at least one, no repeats. */
function readHostPortList(env: Env, name: string): readonly HostPort[] | undefined {
  const raw = readOptional(env, name);
  if (raw === undefined) return undefined;
  const accepted = 'a comma-separated list of host:port (such as 10.0.0.1:26379,10.0.0.2:26379,[fd00::3]:26379), without repeats';
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry === '') || entries.length > 64 || new Set(entries).size !== entries.length) throw new ConfigError(name, accepted, raw);
  return Object.freeze(
    entries.map((entry) => {
      try {
        return readHostPort({ [name]: entry }, name) as HostPort;
      } catch {
        throw new ConfigError(name, accepted, raw);
      }
    }),
  );
}

/**
 * Where the shared store is: at most one of REDIS_URL, REDIS_SENTINELS (with
 * REDIS_SENTINEL_NAME) and REDIS_CLUSTER_NODES. Two at once is refused rather
 * than one picked: either choice would surprise someone.
 */
function readRedisTopology(env: Env, prefix: string): Pick<Config, 'redisUrl' | 'redisSentinel' | 'redisClusterNodes'> {
  const redisUrl = readRedisUrl(env, 'REDIS_URL');
  const sentinels = readHostPortList(env, 'REDIS_SENTINELS');
  const sentinelName = readOptional(env, 'REDIS_SENTINEL_NAME');
  const clusterNodes = readHostPortList(env, 'REDIS_CLUSTER_NODES');
  const given = [redisUrl && 'REDIS_URL', sentinels && 'REDIS_SENTINELS', clusterNodes && 'REDIS_CLUSTER_NODES'].filter((v): v is string => Boolean(v));
  if (given.length > 1) {
    // Named by the second: never REDIS_URL, whose value may hold a password.
    const second = given[1] as string;
    throw new ConfigError(second, `one Redis topology: REDIS_URL, REDIS_SENTINELS (with REDIS_SENTINEL_NAME) or REDIS_CLUSTER_NODES, not ${given.join(' and ')}`, env[second] ?? '');
  }
  if (sentinelName !== undefined && sentinels === undefined) {
    throw new ConfigError('REDIS_SENTINEL_NAME', 'set together with REDIS_SENTINELS (the sentinels that know this master)', sentinelName);
  }
  if (sentinels !== undefined && (sentinelName === undefined || !/^[A-Za-z0-9._-]{1,64}$/.test(sentinelName))) {
    throw new ConfigError('REDIS_SENTINEL_NAME', 'the master name the sentinels monitor (1 to 64 characters from A-Z a-z 0-9 . _ -, such as mymaster), required with REDIS_SENTINELS', sentinelName ?? '');
  }
  // Redis Cluster hashes the first {…} of a key: a brace in the prefix would put every key on one node.
  if (clusterNodes !== undefined && /[{}]/.test(prefix)) {
    throw new ConfigError('REDIS_PREFIX', 'no { or } with REDIS_CLUSTER_NODES (every key carries its own hash tag; a brace in the prefix would put all keys in one slot)', prefix);
  }
  return {
    redisUrl,
    redisSentinel: sentinels !== undefined && sentinelName !== undefined ? Object.freeze({ sentinels, name: sentinelName }) : undefined,
    redisClusterNodes: clusterNodes,
  };
}

/** Whether state is shared on Redis (any topology) rather than kept in each process. */
export function usesRedis(config: Pick<Config, 'redisUrl' | 'redisSentinel' | 'redisClusterNodes'>): boolean {
  return config.redisUrl !== undefined || config.redisSentinel !== undefined || config.redisClusterNodes !== undefined;
}

function readOptional(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

function readTls(env: Env): TlsConfig {
  const port = readInt(env, 'CHAOS_TLS_PORT', 8444, 0, 65535);
  const base = (readOptional(env, 'TLS_BASE') ?? 'tls.localhost').toLowerCase();
  // At least two labels: a name constraint on a bare label would cover a whole TLD's worth of names.
  if (!/^(?=.{3,200}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(base)) {
    throw new ConfigError('TLS_BASE', 'a DNS name of two or more labels, such as tls.localhost', env.TLS_BASE ?? '');
  }
  return Object.freeze({
    dir: readOptional(env, 'TLS_DIR'),
    port,
    publicPort: readInt(env, 'PUBLIC_TLS_PORT', port, 0, 65535),
    frontPort: readInt(env, 'FRONT_TLS_PORT', 8443, 0, 65535),
    handshakesPerIp: readInt(env, 'TLS_HANDSHAKES_PER_IP', 100, 0, 1_000_000),
    base,
    // Off unless set (tests start control without it); 0 takes a free port.
    controlPort: readOptional(env, 'CONTROL_TLS_PORT') === undefined ? undefined : readInt(env, 'CONTROL_TLS_PORT', 0, 0, 65535),
  });
}

export function loadConfig(env: Env): Config {
  const bindAddress = env.BIND_ADDRESS || '127.0.0.1';
  // An address, not a name: a typo must name the variable, not surface as a resolver error at listen time.
  if (isIP(bindAddress) === 0 && bindAddress !== 'localhost') {
    throw new ConfigError('BIND_ADDRESS', 'an IP address to listen on (127.0.0.1, ::1, 0.0.0.0, ::) or localhost', bindAddress);
  }
  const ports = {
    chaos: readInt(env, 'CHAOS_PORT', 8081, 0, 65535),
    control: readInt(env, 'CONTROL_PORT', 8082, 0, 65535),
    bots: readInt(env, 'BOTS_PORT', 8083, 0, 65535),
    front: readInt(env, 'FRONT_PORT', 8080, 0, 65535),
  };
  // By default every link names the address the embedded stack is reached at.
  const local = (port: number) => `http://127.0.0.1:${port}`;
  const control = readUrl(env, 'PUBLIC_CONTROL_URL', local(ports.control));
  const urls: PublicUrls = {
    base: readUrl(env, 'PUBLIC_BASE_URL', local(ports.chaos)),
    control,
    bots: readUrl(env, 'PUBLIC_BOTS_URL', local(ports.bots)),
    // The hub, identity and agents hosts are names of the control process
    // (DESIGN §1). By default they are three distinct authorities, so the
    // discovery documents that name them really disagree, and each still
    // reaches the control port on loopback: curl and browsers resolve
    // `localhost` and `*.localhost` there by themselves.
    hub: readUrl(env, 'PUBLIC_HUB_URL', `http://localhost:${ports.control}`),
    identity: readUrl(env, 'PUBLIC_IDENTITY_URL', `http://identity.localhost:${ports.control}`),
    agents: readUrl(env, 'PUBLIC_AGENTS_URL', `http://agents.localhost:${ports.control}`),
  };
  const redisPrefix = readOptional(env, 'REDIS_PREFIX') ?? 'chaos:';
  if (!/^[A-Za-z0-9:_.{}-]{1,64}$/.test(redisPrefix)) {
    throw new ConfigError('REDIS_PREFIX', '1 to 64 characters from A-Z a-z 0-9 : _ . - { }, such as chaos:', redisPrefix);
  }
  const redis = readRedisTopology(env, redisPrefix);
  const logLevelRaw = env.LOG_LEVEL || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevelRaw)) {
    throw new ConfigError('LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, logLevelRaw);
  }
  // Nobody by default: a client's own X-Forwarded-For or PROXY header never
  // changes its identity. The full stack sets `loopback` for its HAProxy.
  const trustProxyRaw = env.TRUST_PROXY ?? '';
  let trustProxy: TrustList;
  try {
    trustProxy = parseTrustList(trustProxyRaw);
  } catch (error) {
    if (!(error instanceof TrustListError)) throw error;
    throw new ConfigError(
      'TRUST_PROXY',
      `comma-separated IP addresses or CIDRs (such as 127.0.0.1,::1,10.0.0.0/8,fd00::/8) or loopback; ${error.message}`,
      trustProxyRaw,
    );
  }
  const stack = (env.STACK || 'auto').toLowerCase();
  if (!(STACK_MODES as readonly string[]).includes(stack)) throw new ConfigError('STACK', `one of ${STACK_MODES.join(', ')}`, env.STACK ?? '');
  return Object.freeze({
    stack: stack as StackMode,
    bindAddress,
    ports: Object.freeze(ports),
    metricsPort: readInt(env, 'METRICS_PORT', 0, 0, 65535),
    ...redis,
    redisPrefix,
    rateLimit: Object.freeze({
      general: readInt(env, 'RATE_LIMIT_GENERAL', 60, 0, 1_000_000_000),
      infinite: readInt(env, 'RATE_LIMIT_INFINITE', 10, 0, 1_000_000_000),
    }),
    trustProxy,
    urls: Object.freeze(urls),
    ai: Object.freeze({
      baseUrl: readApiBase(env, 'AI_BASE_URL'),
      apiKey: readOptional(env, 'AI_API_KEY'),
      model: readOptional(env, 'AI_MODEL'),
      dailyBudget: readInt(env, 'AI_DAILY_BUDGET', 1000, 0, 100_000_000),
      timeoutMs: readInt(env, 'AI_TIMEOUT_MS', 10_000, 1, 10_000),
    }),
    logLevel: logLevelRaw as LogLevel,
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 20_000, 0, 600_000),
    drainNoticeMs: readInt(env, 'DRAIN_NOTICE_MS', 0, 0, 60_000),
    maxResponseMs: readInt(env, 'MAX_RESPONSE_MS', 120_000, 1_000, 3_600_000),
    maxConnectionMs: readInt(env, 'MAX_CONNECTION_MS', 600_000, 1_000, 86_400_000),
    maxConnections: readInt(env, 'MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    maxConnectionsPerIp: readInt(env, 'MAX_CONNECTIONS_PER_IP', 64, 0, 1_000_000),
    firstRequestTimeoutMs: readInt(env, 'FIRST_REQUEST_TIMEOUT_MS', 5_000, 100, 60_000),
    holdMs: readInt(env, 'HOLD_MS', 30_000, 100, 120_000),
    maxHeldPerIp: readInt(env, 'MAX_HELD_PER_IP', 32, 0, 100_000),
    examTtlMs: readInt(env, 'EXAM_TTL_SECONDS', 3600, 1, 86_400) * 1000,
    examMaxOpenPerIp: readInt(env, 'EXAM_MAX_OPEN_PER_IP', 12, 1, 1000),
    wsEchoBytesPerSecond: readInt(env, 'WS_ECHO_BYTES_PER_SECOND', 256 * 1024, 1024, 1024 * 1024 * 1024),
    replicas: readInt(env, 'REPLICAS', 2, 1, 16),
    compareVia: readHostPort(env, 'COMPARE_VIA'),
    // Empty entries are dropped: a program is never looked up in the working directory by accident.
    programPath: Object.freeze((env.PATH ?? '').split(delimiter).filter((dir) => dir !== '')),
    tls: readTls(env),
  });
}

/** Lower-cased host:port of a public URL, with the scheme's default port dropped. */
export function authorityOf(url: string): string {
  const u = new URL(url);
  return u.host.toLowerCase();
}
