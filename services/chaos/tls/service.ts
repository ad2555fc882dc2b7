// The chaos process with its TLS listener (TLS_DIR set): the plain server on
// CHAOS_PORT, and on CHAOS_TLS_PORT the TLS modes, both served by the one
// ChaosServer's connection code.
import type { Logger } from '../../../shared/config/log.js';
import type { Service } from '../../../shared/runtime/run.js';
import { TlsMaterial } from '../../../shared/tls/material.js';
import type { ChaosServer } from '../server.js';
import { TlsListener } from './listener.js';

export class ChaosTlsService implements Service {
  #listener: TlsListener | undefined;
  #material: TlsMaterial | undefined;
  /** The TLS listener's bound port, once listening. */
  tlsPort: number | undefined;

  constructor(
    readonly chaos: ChaosServer,
    private readonly logger: Logger,
  ) {}

  async listen(port: number, host: string): Promise<number> {
    const { config } = this.chaos;
    const material = (this.#material = await TlsMaterial.load(config));
    for (const [mode, reason] of material.unavailable) this.logger.warn({ mode, reason }, `TLS mode ${mode} is unavailable in this runtime`);
    const bound = await this.chaos.listen(port, host);
    this.#listener = new TlsListener(this.chaos, material, this.logger);
    try {
      this.tlsPort = await this.#listener.listen(config.tls.port, host);
    } catch (error) {
      await this.chaos.shutdown(0);
      throw error;
    }
    this.logger.info({ port: this.tlsPort, base: config.tls.base }, 'TLS listening');
    return bound;
  }

  async shutdown(graceMs: number): Promise<void> {
    const closing = this.#listener?.close();
    await this.chaos.shutdown(graceMs);
    await closing;
  }

  get connectionCount(): number {
    return this.chaos.connectionCount;
  }

  get heldResponses(): number {
    return this.chaos.heldResponses;
  }

  get endpointPaths(): ReadonlyMap<string, string> {
    return this.chaos.endpointPaths;
  }

  /** Seconds until each mode's leaf expires: chaos_tls_cert_expiry_seconds. */
  tlsCertExpiry(): ReadonlyMap<string, number> {
    return this.#material?.expirySeconds() ?? new Map();
  }
}
