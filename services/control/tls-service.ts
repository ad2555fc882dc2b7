// The control process with its TLS listener (TLS_DIR and CONTROL_TLS_PORT
// set; docs/http2.md "Control twins over TLS"): the plain port on
// CONTROL_PORT, and on CONTROL_TLS_PORT the name control.<TLS_BASE> with
// ALPN h2 and http/1.1, both served by the one HttpService.
import type { Logger } from '../../shared/config/log.js';
import type { HttpService } from '../../shared/http/http-service.js';
import { HttpTlsDoor } from '../../shared/http/tls-door.js';
import type { Service } from '../../shared/runtime/run.js';
import { HostLeafMaterial } from '../../shared/tls/material.js';
import { CONTROL_TLS_LABEL, controlTlsHost } from '../../shared/tls/modes.js';

export class ControlTlsService implements Service {
  #door: HttpTlsDoor | undefined;
  #material: HostLeafMaterial | undefined;
  /** The TLS listener's bound port, once listening. */
  tlsPort: number | undefined;

  constructor(
    readonly http: HttpService,
    private readonly logger: Logger,
  ) {}

  async listen(port: number, host: string): Promise<number> {
    const { config } = this.http.options;
    const tlsPort = config.tls.controlPort;
    if (tlsPort === undefined) throw new Error('the control TLS listener needs CONTROL_TLS_PORT');
    const material = (this.#material = await HostLeafMaterial.load(config, controlTlsHost(config.tls.base), CONTROL_TLS_LABEL));
    const bound = await this.http.listen(port, host);
    this.#door = new HttpTlsDoor(this.http, material, config, this.logger);
    try {
      this.tlsPort = await this.#door.listen(tlsPort, host);
    } catch (error) {
      material.stop();
      await this.http.shutdown(0);
      throw error;
    }
    this.logger.info({ port: this.tlsPort, host: material.host }, 'control TLS listening');
    return bound;
  }

  async shutdown(graceMs: number): Promise<void> {
    const closing = this.#door?.close();
    await this.http.shutdown(graceMs);
    await closing;
  }

  get connectionCount(): number {
    return this.http.connectionCount;
  }

  get heldResponses(): number {
    return this.http.heldResponses;
  }

  get endpointPaths(): ReadonlyMap<string, string> {
    return this.http.endpointPaths;
  }

  /** Seconds until control's leaf expires: chaos_tls_cert_expiry_seconds{mode="control"}. */
  tlsCertExpiry(): ReadonlyMap<string, number> {
    return this.#material === undefined ? new Map() : new Map([[CONTROL_TLS_LABEL, this.#material.expirySeconds()]]);
  }
}
