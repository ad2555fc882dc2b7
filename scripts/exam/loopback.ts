// Imported for its effect by every Node step taker: `*.localhost` names
// resolve to the loopback (RFC 6761 §6.3), as curl and browsers resolve them
// by themselves, so the https step's host (`good.<TLS_BASE>`) is reachable on
// a machine whose resolver does not (glibc without nss-myhostname). It is the
// hosts line a user would add, kept inside the runner: every client that
// connects through node:net (http, https, fetch's undici, the SDKs over
// fetch) asks dns.lookup at connect time, and reads the one replaced here.
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';

type Callback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

const systemLookup = dns.lookup.bind(dns) as (hostname: string, options: LookupOptions, callback: Callback) => void;

function loopbackLookup(hostname: string, options: LookupOptions | number | Callback, callback?: Callback): void {
  const done = (typeof options === 'function' ? options : callback) as Callback;
  const opts: LookupOptions = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
  if (!hostname.endsWith('.localhost')) return systemLookup(hostname, opts, done);
  if (opts.all === true) done(null, [{ address: '127.0.0.1', family: 4 }]);
  else done(null, '127.0.0.1', 4);
}

(dns as { lookup: unknown }).lookup = loopbackLookup;
