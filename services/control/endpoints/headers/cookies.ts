import { COOKIES_PARAMS, TWIN_COOKIE, cookiesBody } from '../../../../shared/content/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'cookies',
  path: '/cookies',
  category: 'headers',
  summary: 'Twin of /cookies: one well-formed cookie (session=ok; Path=/; HttpOnly; SameSite=Lax) whatever the mode',
  params: COOKIES_PARAMS,
  handle(ctx, { mode }) {
    ctx.send(200, 'application/json', cookiesBody(mode, 1), undefined, [['Set-Cookie', TWIN_COOKIE]]);
  },
});
