// Pieces both generated frontends use (haproxy-config.ts for the HTTP port,
// haproxy-tls.ts for the TLS port): durations, host names, replica servers
// and their readiness check.

/** Loopback ports, or `{ dns: 'chaos:8081', max: 10 }`: up to `max` servers from the name's addresses. */
export type Replicas = readonly number[] | { readonly dns: string; readonly max: number };

/** Health checks every second, down after two failures: a replica that stops accepting is out within ~2 s. */
export const CHECK = 'inter 1s fall 2 rise 2';
/** Readiness on each replica's admin port (plain HTTP there, no PROXY header). */
export const READY_CHECK = ['  option httpchk', '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host admin', '  http-check expect status 200'];

export function ms(value: number): string {
  return `${Math.ceil(value)}ms`;
}

/** A host name is a DNS name here: anything else would break the generated file. */
export function checkHost(name: string): string {
  if (!/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(name)) throw new Error(`not a host name: ${JSON.stringify(name)}`);
  return name;
}

export function servers(prefix: string, replicas: Replicas, checkPorts: readonly number[] | number): string[] {
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
