// The one place that reads the environment (STYLE §7). `loadConfig` is pure:
// it takes an env object and returns a frozen Config, or throws ConfigError
// naming the variable and what it accepts.

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
  /** Prepended to every Redis key (REDIS_PREFIX, default `chaos:`), so several deployments can share one Redis. */
  readonly redisPrefix: string;
  readonly rateLimit: { readonly general: number; readonly infinite: number };
  readonly trustProxy: readonly string[];
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
}

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

type Env = Readonly<Record<string, string | undefined>>;

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

function readOptional(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

export function loadConfig(env: Env): Config {
  const bindAddress = env.BIND_ADDRESS || '127.0.0.1';
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
  const redisUrl = readRedisUrl(env, 'REDIS_URL');
  const redisPrefix = readOptional(env, 'REDIS_PREFIX') ?? 'chaos:';
  if (!/^[A-Za-z0-9:_.{}-]{1,64}$/.test(redisPrefix)) {
    throw new ConfigError('REDIS_PREFIX', '1 to 64 characters from A-Z a-z 0-9 : _ . - { }, such as chaos:', redisPrefix);
  }
  const logLevelRaw = env.LOG_LEVEL || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevelRaw)) {
    throw new ConfigError('LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, logLevelRaw);
  }
  const trustProxyRaw = env.TRUST_PROXY ?? '127.0.0.1,::1';
  const trustProxy = trustProxyRaw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const address of trustProxy) {
    if (!/^[0-9a-fA-F.:]+$/.test(address)) {
      throw new ConfigError('TRUST_PROXY', 'a comma-separated list of IP addresses', trustProxyRaw);
    }
  }
  return Object.freeze({
    bindAddress,
    ports: Object.freeze(ports),
    metricsPort: readInt(env, 'METRICS_PORT', 0, 0, 65535),
    redisUrl,
    redisPrefix,
    rateLimit: Object.freeze({
      general: readInt(env, 'RATE_LIMIT_GENERAL', 60, 0, 1_000_000_000),
      infinite: readInt(env, 'RATE_LIMIT_INFINITE', 10, 0, 1_000_000_000),
    }),
    trustProxy: Object.freeze(trustProxy),
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
  });
}

/** Lower-cased host:port of a public URL, with the scheme's default port dropped. */
export function authorityOf(url: string): string {
  const u = new URL(url);
  return u.host.toLowerCase();
}
