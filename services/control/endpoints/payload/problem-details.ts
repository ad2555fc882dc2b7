import { PROBLEM_TWIN_PARAMS, PROBLEM_TYPE_PAGE, validProblem } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'problem-details',
  path: '/problem-details',
  category: 'payload',
  summary: 'Twin of /problem-details: a valid RFC 9457 application/problem+json 403 whose type resolves here (describe=true, an HTML page); mode is accepted, no defect applied',
  params: PROBLEM_TWIN_PARAMS,
  handle(ctx, { describe }) {
    if (describe) {
      ctx.send(200, 'text/html; charset=utf-8', PROBLEM_TYPE_PAGE);
      return;
    }
    const answer = validProblem();
    ctx.send(answer.status, answer.contentType, answer.body, undefined, answer.headers);
  },
});
