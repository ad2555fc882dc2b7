// The per-deployment test PKI, kept in TLS_DIR (issue 26): a root
// name-constrained to TLS_BASE (one year), the intermediate that signs every
// leaf, and a client CA with one published client identity. The first process
// to start makes them; the others (replicas, the control process) read them.
// Private keys never leave this module's files and never reach a log.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ecKeys, ecKeysFromPem, issue, parseCert, type Issued } from './x509.js';

const DAY_MS = 86_400_000;
/** The folder inside TLS_DIR; a new layout gets a new name, so an old deployment's files are never misread. */
const FOLDER = 'ca-v1';
const ORG = 'O=Chaos Endpoint Service test';

export interface Pki {
  readonly base: string;
  readonly root: Issued;
  readonly intermediate: Issued;
  readonly clientCa: Issued;
  /** The published client identity (certificate and key, PEM): it is meant to be public. */
  readonly clientIdentityPem: string;
  /** The revoked mode's leaf serial (hex): fixed, so that the hub's CRL and every replica's leaf agree. */
  readonly revokedSerial: string;
}

interface Files {
  readonly [name: string]: string;
}

/**
 * Reads the PKI in `dir`, or makes it there first (atomically: a concurrent
 * starter's copy wins, ours is dropped). A TLS_DIR that holds every file is
 * only read, so it may be read-only (a Kubernetes Secret, docs/deploy.md);
 * one that holds only some, or none and cannot be written, stops start-up
 * with a message saying what is missing and how to make them (tls-init).
 */
export async function loadOrCreatePki(dir: string, base: string, now: Date = new Date()): Promise<Pki> {
  const folder = join(dir, FOLDER);
  let existing = await readFiles(folder);
  // Read file by file while another starter renamed its folder into place (replicas of chaos and control start
  // together): the first files missing, the later ones there. The rename is atomic, so a second read sees it whole.
  if (existing.missing.length > 0 && existing.missing.length < PKI_FILES.length) existing = await readFiles(folder);
  if (existing.missing.length === 0) return fromFiles(existing.files, base);
  if (existing.missing.length < PKI_FILES.length) {
    throw new Error(
      `TLS_DIR holds an incomplete test PKI: ${folder} has ${PKI_FILES.filter((n) => !existing.missing.includes(n)).join(', ')} but not ${existing.missing.join(', ')}. ` +
        `Give it every file (${PKI_FILES.join(', ')}), as \`chaos-endpoint-service tls-init <dir>\` makes them, or remove the ${FOLDER} folder to make a new root`,
    );
  }
  try {
    return await createPki(dir, folder, base, now);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
      throw new Error(
        `TLS_DIR ${dir} holds no test PKI (${FOLDER}/) and cannot be written (${code}): make one with \`chaos-endpoint-service tls-init <dir>\` and give its ${FOLDER} files to every replica (docs/deploy.md)`,
      );
    }
    throw error;
  }
}

async function createPki(dir: string, folder: string, base: string, now: Date): Promise<Pki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const made = await createFiles(base, now);
  const staging = await mkdtemp(join(dir, '.staging-'));
  try {
    for (const [name, text] of Object.entries(made)) await writeFile(join(staging, name), text, { mode: 0o600 });
    await rename(staging, folder);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // Another process made it first: use theirs.
    const theirs = await readFiles(folder);
    if (theirs.missing.length > 0) throw error;
    return fromFiles(theirs.files, base);
  }
  return fromFiles(made, base);
}

/** The folder inside TLS_DIR that holds the PKI, and its files (a Kubernetes Secret carries exactly these). */
export const PKI_FOLDER = FOLDER;
export const PKI_FILES = ['root.pem', 'root-key.pem', 'intermediate.pem', 'intermediate-key.pem', 'client-ca.pem', 'client-ca-key.pem', 'client.pem', 'revoked-serial'] as const;

async function readFiles(folder: string): Promise<{ files: Files; missing: string[] }> {
  const files: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of PKI_FILES) {
    try {
      files[name] = await readFile(join(folder, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      missing.push(name);
    }
  }
  return { files, missing };
}

async function createFiles(base: string, now: Date): Promise<Files> {
  const notBefore = new Date(now.getTime() - DAY_MS);
  const notAfter = new Date(now.getTime() + 365 * DAY_MS);
  const root = await issue({
    subject: `CN=Chaos test root for ${base}, OU=chaos:root, ${ORG}`, keys: await ecKeys(), notBefore, notAfter, caPathLength: 1, permittedDns: base,
  });
  const intermediate = await issue({
    subject: `CN=Chaos test intermediate for ${base}, OU=chaos:intermediate, ${ORG}`, keys: await ecKeys(), notBefore, notAfter, caPathLength: 0, issuer: root,
  });
  const clientCa = await issue({ subject: `CN=Chaos test client CA for ${base}, OU=chaos:client-ca, ${ORG}`, keys: await ecKeys(), notBefore, notAfter, caPathLength: 0 });
  const client = await issue({ subject: `CN=chaos test client, OU=chaos:client-cert, ${ORG}`, keys: await ecKeys(), notBefore, notAfter, issuer: clientCa, use: 'client' });
  return {
    'root.pem': root.certPem, 'root-key.pem': root.keyPem,
    'intermediate.pem': intermediate.certPem, 'intermediate-key.pem': intermediate.keyPem,
    'client-ca.pem': clientCa.certPem, 'client-ca-key.pem': clientCa.keyPem,
    'client.pem': `${client.certPem.trim()}\n${client.keyPem.trim()}\n`,
    'revoked-serial': revokedSerial(),
  };
}

/** 16 random bytes as hex, positive (top bit clear) and without a leading zero byte, as DER integers want. */
function revokedSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x10;
  return bytes.toString('hex');
}

async function fromFiles(files: Files, base: string): Promise<Pki> {
  // A root made for another TLS_BASE is constrained to that base: every leaf of ours would fail under it.
  if (!parseCert(files['root.pem'] as string).subject.includes(`for ${base},`)) {
    throw new Error(`the test root in TLS_DIR was made for another TLS_BASE than ${base}: use another TLS_DIR, or remove its ${FOLDER} folder to make a new root`);
  }
  const pair = async (certName: string, keyName: string): Promise<Issued> => {
    const certPem = files[certName] as string;
    const keyPem = files[keyName] as string;
    return { cert: parseCert(certPem), certPem, keys: await ecKeysFromPem(keyPem), keyPem };
  };
  return {
    base,
    root: await pair('root.pem', 'root-key.pem'),
    intermediate: await pair('intermediate.pem', 'intermediate-key.pem'),
    clientCa: await pair('client-ca.pem', 'client-ca-key.pem'),
    clientIdentityPem: files['client.pem'] as string,
    revokedSerial: (files['revoked-serial'] as string).trim(),
  };
}
