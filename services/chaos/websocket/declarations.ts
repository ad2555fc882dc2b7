// What every WebSocket endpoint of the chaos host declares alike.
import type { Config } from '../../../shared/config/config.js';
import type { TransportSpec } from '../../../shared/registry/transports.js';

/** The opening handshake is an HTTP/1.1 request; what follows its 101 is a WebSocket. */
export const WEBSOCKET_TRANSPORTS: TransportSpec = { protocols: ['http/1.1', 'websocket'] };

/** A WebSocket is a held connection (issue 27): a MAX_HELD_PER_IP slot, at most MAX_RESPONSE_MS. */
export const WEBSOCKET_HOLDING = { longestMs: (config: Config): number => config.maxResponseMs };
