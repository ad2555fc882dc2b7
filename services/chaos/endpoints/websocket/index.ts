// The chaos host's websocket folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import wsClose from './ws-close.js';
import wsDeflate from './ws-deflate.js';
import wsFrames from './ws-frames.js';
import wsHandshake from './ws-handshake.js';
import wsPingFlood from './ws-ping-flood.js';
import wsPongLie from './ws-pong-lie.js';

const endpoints: readonly ChaosEndpoint[] = [wsFrames, wsClose, wsHandshake, wsPingFlood, wsPongLie, wsDeflate];
export default endpoints;
