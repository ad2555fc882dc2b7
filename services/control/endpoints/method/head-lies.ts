import { HEAD_LIES_PARAMS, HEAD_LIES_TYPE, headLiesBody } from '../../../../shared/content/method.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'head-lies',
  path: '/head-lies',
  methods: ['GET', 'HEAD'],
  category: 'method',
  summary: "Twin of /head-lies: HEAD's head is exactly GET's (same Content-Length and Content-Type), with no body",
  params: HEAD_LIES_PARAMS,
  handle(ctx, { mode }) {
    // ctx.send drops the body on HEAD and keeps GET's Content-Length.
    ctx.send(200, HEAD_LIES_TYPE, headLiesBody(mode));
  },
});
