// The admin port of one process (METRICS_PORT, DESIGN §10): /metrics for
// Prometheus, /healthz (alive) and /readyz (ready; 503 once draining). It is
// a separate listener that the front door never routes to: an unknown path
// on a public port still reaches the catalog.
import http from 'node:http';
import type { Metrics } from './metrics.js';
import { listenOn } from './listen.js';

export class AdminServer {
  readonly server: http.Server;
  /** False until the public port listens, and again from the moment draining starts. */
  ready = false;

  constructor(private readonly metrics: Metrics) {
    this.server = http.createServer((req, res) => void this.#handle(req, res));
    this.server.keepAliveTimeout = 5_000;
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const text = (status: number, body: string): void => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return text(405, 'GET or HEAD\n');
    }
    switch (path) {
      case '/metrics': {
        const { contentType, body } = await this.metrics.scrape();
        res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' }).end(body);
        return;
      }
      case '/healthz':
        return text(200, 'ok\n');
      case '/readyz':
        return this.ready ? text(200, 'ready\n') : text(503, 'draining or not started\n');
      default:
        return text(404, 'admin port: /metrics, /healthz, /readyz\n');
    }
  }

  listen(port: number, host: string): Promise<number> {
    return listenOn(this.server, port, host);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
