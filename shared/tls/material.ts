// A process's TLS material: the kept PKI (TLS_DIR), this process's leaves and
// contexts (minted in memory, re-minted every RENEW_MS), and the modes this
// runtime cannot serve. The chaos process serves with it; the hub publishes
// its root, CRL and host list. HostLeafMaterial is one host's leaf from the
// same PKI, renewed the same way: control's TLS name for its twins.
import { createSecureContext, type SecureContext, type Server as TlsServer } from 'node:tls';
import type { Config } from '../config/config.js';
import { ocspStapler, secureContexts, unavailableModes } from './handshake.js';
import { mintHostLeaf, mintLeaves, type ModeLeaves, type ServedLeaf } from './leaves.js';
import type { TlsMode } from './modes.js';
import { ocspResponseDer, type OcspStatus } from './ocsp.js';
import { loadOrCreatePki, type Pki } from './pki.js';
import { crlPem } from './x509.js';

/** Leaves are re-minted this often: each is valid (or broken) relative to its minting, a day at most ago. */
export const RENEW_MS = 86_400_000;

export type Clock = () => Date;

/** The modes that staple an OCSP response, and what it says (docs/tls.md, "OCSP stapling"). */
export const STAPLED: ReadonlyMap<TlsMode, OcspStatus> = new Map([['revoked', 'revoked']]);

interface Minted {
  readonly leaves: ModeLeaves;
  readonly contexts: ReadonlyMap<TlsMode, SecureContext>;
  readonly unavailable: ReadonlyMap<TlsMode, string>;
  /** Each stapling mode's OCSP response (DER), minted with its leaf. */
  readonly ocsp: ReadonlyMap<TlsMode, Buffer>;
}

export class TlsMaterial {
  #minted: Minted;
  #timer: NodeJS.Timeout | undefined;
  #crl: { readonly pem: string; readonly madeMs: number } | undefined;
  /** One never-listening tls.Server per stapling mode, handing out the current response (not #private: tests derive a material with Object.create). */
  private readonly staplers: ReadonlyMap<TlsMode, TlsServer>;

  private constructor(
    readonly pki: Pki,
    private readonly hubUrl: string,
    private readonly clock: Clock,
    minted: Minted,
  ) {
    this.#minted = minted;
    this.staplers = new Map([...STAPLED.keys()].map((mode) => [mode, ocspStapler(() => this.#minted.ocsp.get(mode))]));
  }

  /** Reads (or makes) the PKI in config.tls.dir and mints every leaf at `clock()`. */
  static async load(config: Config, clock: Clock = () => new Date()): Promise<TlsMaterial> {
    const dir = config.tls.dir;
    if (dir === undefined) throw new Error('TLS needs TLS_DIR');
    const pki = await loadOrCreatePki(dir, config.tls.base, clock());
    return new TlsMaterial(pki, config.urls.hub, clock, await mint(pki, clock(), config.urls.hub));
  }

  get leaves(): ModeLeaves {
    return this.#minted.leaves;
  }

  /** The mode's context; undefined when the mode is unavailable. */
  context(mode: TlsMode): SecureContext | undefined {
    return this.#minted.unavailable.has(mode) ? undefined : this.#minted.contexts.get(mode);
  }

  /** The server whose 'OCSPRequest' staples the mode's response; undefined: the mode staples nothing. */
  stapler(mode: TlsMode): TlsServer | undefined {
    return this.staplers.get(mode);
  }

  /** The mode's current OCSP response (DER); undefined: it staples none. */
  ocspResponse(mode: TlsMode): Buffer | undefined {
    return this.#minted.ocsp.get(mode);
  }

  /** Modes this runtime cannot serve, each with the self-check's reason. */
  get unavailable(): ReadonlyMap<TlsMode, string> {
    return this.#minted.unavailable;
  }

  /** Mints every leaf again at the clock's now; the new contexts serve the next handshakes. */
  async remint(): Promise<void> {
    this.#minted = await mint(this.pki, this.clock(), this.hubUrl);
  }

  /** Re-mints every `intervalMs` until stop(); a failed mint keeps the last leaves and tries again next time. */
  startRenewal(onError: (error: unknown) => void, intervalMs: number = RENEW_MS): void {
    this.#timer = setInterval(() => void this.remint().catch(onError), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Seconds from the clock's now until each mode's leaf expires (negative: expired): chaos_tls_cert_expiry_seconds. */
  expirySeconds(): ReadonlyMap<TlsMode, number> {
    const now = this.clock().getTime();
    return new Map([...this.#minted.leaves].map(([mode, leaf]) => [mode, Math.round((leaf.notAfter.getTime() - now) / 1000)]));
  }

  /** The CRL listing the revoked mode's leaf, signed by the intermediate; made again after an hour (it is valid for a week). */
  async crl(): Promise<string> {
    const now = this.clock();
    if (this.#crl !== undefined && now.getTime() - this.#crl.madeMs < 3_600_000) return this.#crl.pem;
    const pem = await crlPem(this.pki.intermediate, [this.pki.revokedSerial], now, new Date(now.getTime() + 7 * RENEW_MS));
    this.#crl = { pem, madeMs: now.getTime() };
    return pem;
  }
}

async function mint(pki: Pki, now: Date, hubUrl: string): Promise<Minted> {
  const leaves = await mintLeaves(pki, now, hubUrl);
  const contexts = secureContexts(leaves);
  const unavailable = await unavailableModes(leaves, contexts, pki.clientIdentityPem);
  const ocsp = new Map<TlsMode, Buffer>();
  for (const [mode, status] of STAPLED) {
    const leaf = leaves.get(mode);
    if (leaf !== undefined) ocsp.set(mode, ocspResponseDer({ issuer: pki.intermediate, serialHex: leaf.serialHex, status, now }));
  }
  return { leaves, contexts, unavailable, ocsp };
}

/**
 * One host's leaf (not a mode: control.<TLS_BASE>, docs/http2.md) from the
 * kept PKI, minted in memory at load and again every RENEW_MS, valid (a day
 * ago to 30 days on) relative to each minting, as `good`'s.
 */
export class HostLeafMaterial {
  #leaf: ServedLeaf;
  #context: SecureContext;
  #timer: NodeJS.Timeout | undefined;

  private constructor(
    readonly pki: Pki,
    readonly host: string,
    private readonly unit: string,
    private readonly clock: Clock,
    leaf: ServedLeaf,
  ) {
    this.#leaf = leaf;
    this.#context = createSecureContext(leaf.context);
  }

  /** Reads (or makes) the PKI in config.tls.dir and mints `host`'s leaf at `clock()`, `unit` in its OU. */
  static async load(config: Config, host: string, unit: string, clock: Clock = () => new Date()): Promise<HostLeafMaterial> {
    const dir = config.tls.dir;
    if (dir === undefined) throw new Error('TLS needs TLS_DIR');
    const pki = await loadOrCreatePki(dir, config.tls.base, clock());
    return new HostLeafMaterial(pki, host, unit, clock, await mintHostLeaf(pki, clock(), host, unit));
  }

  get leaf(): ServedLeaf {
    return this.#leaf;
  }

  /** The current leaf's context: each handshake takes the one current then. */
  get context(): SecureContext {
    return this.#context;
  }

  /** Mints the leaf again at the clock's now. */
  async remint(): Promise<void> {
    const leaf = await mintHostLeaf(this.pki, this.clock(), this.host, this.unit);
    this.#context = createSecureContext(leaf.context);
    this.#leaf = leaf;
  }

  /** Re-mints every `intervalMs` until stop(); a failed mint keeps the last leaf and tries again next time. */
  startRenewal(onError: (error: unknown) => void, intervalMs: number = RENEW_MS): void {
    clearInterval(this.#timer);
    this.#timer = setInterval(() => void this.remint().catch(onError), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Seconds from the clock's now until the leaf expires. */
  expirySeconds(): number {
    return Math.round((this.#leaf.notAfter.getTime() - this.clock().getTime()) / 1000);
  }
}
