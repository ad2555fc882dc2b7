import { defineChaosEndpoint } from '../../endpoint.js';

export default defineChaosEndpoint({
  id: 'empty',
  path: '/empty',
  category: 'fault-injection',
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
