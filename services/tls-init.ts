// `chaos-endpoint-service tls-init <dir>`: makes the per-deployment test PKI
// (the root, the intermediate, the client CA and identity, the revoked serial)
// in <dir>/ca-v1 with the code the services use at start (shared/tls/pki.ts),
// or checks the one already there. Its files are what a read-only TLS_DIR
// must hold: the Kubernetes Secret of docs/deploy.md is made from them.
import { join } from 'node:path';
import { loadConfig } from '../shared/config/config.js';
import { loadOrCreatePki, PKI_FILES, PKI_FOLDER } from '../shared/tls/pki.js';

/** Makes (or reads) the PKI for TLS_BASE in `dir`; returns the lines to print. */
export async function tlsInit(dir: string, env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const { base } = loadConfig(env).tls;
  const pki = await loadOrCreatePki(dir, base);
  const folder = join(dir, PKI_FOLDER);
  return (
    `The TLS test PKI for ${base} is in ${folder} (${PKI_FILES.join(', ')}); root valid until ${pki.root.cert.notAfter.toISOString()}.\n` +
    'Keep it secret: it holds the root\'s and the intermediate\'s keys. Every replica of chaos and control reads it as TLS_DIR.\n' +
    `For Kubernetes (docs/deploy.md): kubectl -n chaos-endpoints create secret generic chaos-tls --from-file=${folder}\n`
  );
}
