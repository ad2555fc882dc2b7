// One WebSocket server for bench/websocket.ts, as a child process (WS_BENCH_TARGET):
// `chaos` (the chaos host, its own frame codec), `twin` (the control host, ws),
// or `ws` (a minimal ws echo server, the peer). Sends {type: 'ready', port}.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { ChaosServer } from '../services/chaos/server.js';
import { serviceRegistries } from '../services/registries.js';
import { loadConfig } from '../shared/config/config.js';
import { createLogger } from '../shared/config/log.js';
import { HttpService } from '../shared/http/http-service.js';
import { MemoryStore } from '../shared/store/memory.js';

const target = process.env.WS_BENCH_TARGET ?? 'ws';
// The per-client caps off: the bench's one client opens thousands of sockets.
const config = loadConfig({
  LOG_LEVEL: 'silent', RATE_LIMIT_GENERAL: '0', MAX_HELD_PER_IP: '0', MAX_CONNECTIONS_PER_IP: '0', MAX_CONNECTIONS: '30000',
  FIRST_REQUEST_TIMEOUT_MS: '60000',
  // The echo's byte rate (256 KiB/s past a 1 MiB burst by design) bound the "messages at once" figure after 3 s of
  // round trips had spent the burst: the codec is measured with the bound set high (bench/README.md, WebSockets).
  WS_ECHO_BYTES_PER_SECOND: process.env.WS_ECHO_BYTES_PER_SECOND ?? String(1024 * 1024 * 1024),
});
let port: number;
if (target === 'chaos') {
  const server = new ChaosServer({ config, logger: createLogger('chaos', 'silent'), registry: serviceRegistries().chaos, store: new MemoryStore() });
  port = await server.listen(0, '127.0.0.1');
} else if (target === 'twin') {
  const service = new HttpService({ host: 'control', config, logger: createLogger('control', 'silent'), registry: serviceRegistries().control, store: new MemoryStore() });
  port = await service.listen(0, '127.0.0.1');
} else {
  const server = http.createServer((_req, res) => res.end());
  const wss = new WebSocketServer({ server, perMessageDeflate: false, clientTracking: false });
  wss.on('connection', (ws) => ws.on('message', (data, binary) => ws.send(data, { binary })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}
process.send?.({ type: 'ready', port });
