// The hub's TLS files (docs/tls.md): the published test root, the revoked
// mode's CRL, the host list with what each client says, and the published
// client identity of client-cert. Only these leave TLS_DIR: the root's,
// intermediate's and client CA's keys never do.
import type { Config } from '../config/config.js';
import type { HubPage } from '../pipeline/dispatch.js';
import type { PlainResponse } from '../registry/errors.js';
import { TlsMaterial } from '../tls/material.js';
import { TLS_MODE_INFO, TLS_MODES, tlsHostOf } from '../tls/modes.js';

export const TLS_FILE_PATHS = ['/tls/root.pem', '/tls/hosts.json', '/tls/crl.pem', '/tls/client.pem'] as const;
type TlsFilePath = (typeof TLS_FILE_PATHS)[number];

function file(type: string, text: string): PlainResponse {
  const body = Buffer.from(text);
  return {
    status: 200,
    headers: [
      ['Content-Type', type],
      ['Content-Length', String(body.length)],
      ['X-Content-Type-Options', 'nosniff'],
      ['Cache-Control', 'no-cache'],
    ],
    body,
  };
}

/** The host list: every mode, its URL, defect, what a correct client does, what clients say, and whether this runtime serves it. */
export function hostsDocument(config: Config, material: TlsMaterial): object {
  const { base, publicPort } = config.tls;
  const port = publicPort === 443 ? '' : `:${publicPort}`;
  return {
    base,
    port: publicPort,
    root: `${config.urls.hub}/tls/root.pem`,
    crl: `${config.urls.hub}/tls/crl.pem`,
    client_identity: `${config.urls.hub}/tls/client.pem`,
    modes: TLS_MODES.map((mode) => {
      const info = TLS_MODE_INFO[mode];
      const host = tlsHostOf(mode, base);
      const unavailable = material.unavailable.get(mode);
      return {
        mode, host, url: `https://${host}${port}/`, defect: info.defect, expect: info.expect, clients: info.clients,
        available: unavailable === undefined, ...(unavailable !== undefined ? { unavailable_reason: unavailable } : {}),
      };
    }),
  };
}

/** The hub's pages under /tls/, keyed by path; empty without TLS_DIR. The material loads once, in the background. */
export function tlsFilePages(config: Config): ReadonlyMap<string, HubPage> {
  if (config.tls.dir === undefined) return new Map();
  let loading: Promise<TlsMaterial> | undefined;
  const material = (): Promise<TlsMaterial> => (loading ??= TlsMaterial.load(config));
  const answers: Record<TlsFilePath, (m: TlsMaterial) => Promise<PlainResponse>> = {
    '/tls/root.pem': async (m) => file('application/x-pem-file', `${m.pki.root.certPem.trim()}\n`),
    '/tls/crl.pem': async (m) => file('application/x-pem-file', `${(await m.crl()).trim()}\n`),
    '/tls/client.pem': async (m) => file('application/x-pem-file', m.pki.clientIdentityPem),
    '/tls/hosts.json': async (m) => file('application/json', `${JSON.stringify(hostsDocument(config, m), null, 2)}\n`),
  };
  return new Map(TLS_FILE_PATHS.map((path) => [path, { answer: async () => answers[path](await material()) }]));
}
