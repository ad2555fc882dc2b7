import { THROTTLE_PARAMS, throttleBody } from '../../../../shared/content/rate-limiting.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'throttle',
  path: '/throttle',
  methods: ['GET', 'POST'],
  category: 'rate-limiting',
  summary: 'Twin of /throttle: never throttles; 200 for every call of every id',
  params: THROTTLE_PARAMS,
  handle(ctx, { id, seconds }) {
    ctx.send(200, 'application/json', throttleBody(id, seconds, null, null), undefined, [['Cache-Control', 'no-store']]);
  },
});
