// The control host's websocket folder: the well-formed twins of the chaos WebSockets and /ws/echo, listed once, in catalog order.
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import wsClose from './ws-close.js';
import wsDeflate from './ws-deflate.js';
import wsEcho from './ws-echo.js';
import wsFrames from './ws-frames.js';
import wsHandshake from './ws-handshake.js';
import wsPingFlood from './ws-ping-flood.js';

const endpoints: readonly HttpEndpoint[] = [wsEcho, wsFrames, wsClose, wsHandshake, wsPingFlood, wsDeflate];
export default endpoints;
