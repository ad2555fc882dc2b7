// The ioredis client for each topology (one Redis, Sentinel, Cluster), failing fast (DESIGN §7).
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** A host and port (a sentinel or a cluster node). */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** Where Redis is: exactly one of url, sentinel and clusterNodes (loadConfig refuses two). */
export interface RedisStoreOptions {
  /** redis://, rediss://, an absolute unix socket path or unix:///path (validated by loadConfig). */
  readonly url?: string;
  /** REDIS_SENTINELS + REDIS_SENTINEL_NAME: the master is asked of the sentinels, again after each lost connection. */
  readonly sentinel?: { readonly sentinels: readonly RedisNode[]; readonly name: string };
  /** REDIS_CLUSTER_NODES: seed nodes of a Redis Cluster; the slot map is read from them. */
  readonly clusterNodes?: readonly RedisNode[];
  /** Prepended to every key (REDIS_PREFIX); default `chaos:`. */
  readonly prefix?: string;
  /** Longest wait for one reply before the operation fails (default 100 ms). */
  readonly commandTimeoutMs?: number;
  /** Longest wait for a TCP connection (default 1000 ms). */
  readonly connectTimeoutMs?: number;
  /** Ceiling of the reconnect backoff (default 1000 ms). */
  readonly reconnectMaxMs?: number;
  /** Commands issued in the same tick share one write (default true). */
  readonly autoPipelining?: boolean;
}

/** ioredis options from our URL forms: a unix socket becomes `path`. */
function connectionOf(url: string): string | { path: string } {
  if (url.startsWith('/')) return { path: url };
  if (url.startsWith('unix:')) return { path: decodeURIComponent(new URL(url).pathname) };
  return url;
}

/**
 * The ioredis client for the topology given. Every one fails fast (DESIGN
 * §7): with ioredis defaults a command against a dead Redis took 73 s to fail.
 */
export function connect(options: RedisStoreOptions): Redis | Cluster {
  const reconnectMaxMs = options.reconnectMaxMs ?? 1000;
  // 50, 100, 200, … ms, capped: a Redis that comes back is found within the cap.
  const backoff = (times: number): number => Math.min(25 * 2 ** Math.min(times, 16), reconnectMaxMs);
  const perConnection = {
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 100,
    connectTimeout: options.connectTimeoutMs ?? 1000,
    // A command that timed out may still have run: resending it after a reconnect would count twice.
    autoResendUnfulfilledCommands: false,
    connectionName: 'chaos-endpoint-service',
  } satisfies RedisOptions;
  const pipelining = {
    enableAutoPipelining: options.autoPipelining ?? true,
    // A rate batch is already one call per turn (checkRate): auto-pipelining would wrap each in a
    // Pipeline of its own for nothing (a Pipeline is costly to build; without it the Redis row ran 1.2–1.3× faster).
    autoPipeliningIgnoredCommands: ['chaosRate'],
  };
  if (options.clusterNodes !== undefined) {
    const clusterOptions: ClusterOptions = {
      ...pipelining,
      enableOfflineQueue: false,
      clusterRetryStrategy: backoff,
      // A dead node's commands fail at once to the fallback rather than wait out redirections:
      // retrying a failover or a down cluster would hold every request of that slot.
      retryDelayOnFailover: 0,
      retryDelayOnClusterDown: 0,
      retryDelayOnTryAgain: 0,
      maxRedirections: 3,
      // Each node's connection comes back by itself (a restarted node without a slot change sends no MOVED).
      clusterNodeRetryStrategy: backoff,
      redisOptions: perConnection,
    };
    const cluster = new Cluster(options.clusterNodes.map((n) => ({ host: n.host, port: n.port })), clusterOptions);
    // A node's connection is opened by its first command, and without an offline queue every other
    // command that meets it still connecting fails: a first burst went to the fallback. Open each at once.
    cluster.on('+node', (node: Redis) => {
      if (node.status === 'wait') node.connect().catch(() => undefined);
    });
    return cluster;
  }
  const redisOptions: RedisOptions = {
    ...perConnection,
    ...pipelining,
    enableOfflineQueue: false,
    retryStrategy: backoff,
    // A master demoted by a failover answers writes READONLY: connect again, to whichever the sentinels name now.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 1 : false),
  };
  if (options.sentinel !== undefined) {
    return new Redis({
      ...redisOptions,
      sentinels: options.sentinel.sentinels.map((n) => ({ host: n.host, port: n.port })),
      name: options.sentinel.name,
      sentinelRetryStrategy: backoff,
      sentinelCommandTimeout: options.commandTimeoutMs ?? 100,
      // Subscribed to +switch-master: a failover moves the connection at once, not at its next error.
      failoverDetector: true,
    });
  }
  if (options.url === undefined) throw new Error('RedisStore: give url, sentinel or clusterNodes');
  const connection = connectionOf(options.url);
  return typeof connection === 'string' ? new Redis(connection, redisOptions) : new Redis({ ...redisOptions, ...connection });
}
