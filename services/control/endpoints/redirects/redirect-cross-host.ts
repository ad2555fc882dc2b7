import { CROSS_CONTROL_PARAMS, crossFinalBody, crossHopBody, crossOnControl, crossToChaos } from '../../../../shared/content/redirects.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'redirect-cross-host',
  path: '/redirect-cross-host',
  category: 'status',
  summary: 'Twin of /redirect-cross-host: a 302 chain on the control host (absolute Locations) ending in 200; a hop from chaos (alternate=true) goes back to chaos',
  params: CROSS_CONTROL_PARAMS,
  headers: ['Location'],
  handle(ctx, { hops, alternate }) {
    if (hops === 0) {
      ctx.send(200, 'application/json', crossFinalBody());
      return;
    }
    // The chaos hop decrements; a hop of the twin's own chain does.
    const location = alternate ? crossToChaos(ctx.config, hops) : crossOnControl(ctx.config, hops - 1);
    ctx.send(302, 'application/json', crossHopBody('control', hops, location), undefined, [['Location', location]]);
  },
});
