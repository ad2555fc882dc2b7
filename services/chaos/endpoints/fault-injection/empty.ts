import { defineChaosEndpoint } from '../../endpoint.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'empty',
  path: '/empty',
  category: 'fault-injection',
  transports: noH2(NO_H2.empty),
  summary: 'Reads the request, then closes the connection cleanly (FIN) without sending a byte',
  params: {},
  wire: {
    cuts: 'close',
  },
  // Not in the /random pool: its answer is no response at all.
  handle(ctx) {
    // The parser has read the whole request (head and body) before dispatch.
    ctx.wire.end('close');
  },
});
