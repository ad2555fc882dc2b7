import { PROBLEM_PARAMS, chaosProblem } from '../../../../shared/content/payload/index.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'problem-details',
  path: '/problem-details',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'An RFC 9457 problem that breaks the RFC: labelled application/json, a 200 whose status member says 403, a relative type that 404s, standard members shadowed by later duplicates, no type/title/status, status as a string, an instance that is not a URI reference',
  params: PROBLEM_PARAMS,
  headers: ['X-Chaos-Problem-Mode'],
  handle(ctx, { mode }) {
    const answer = chaosProblem(mode);
    sendComplete(ctx, answer.status, answer.contentType, answer.body, { 'Problem-Mode': mode }, answer.headers);
  },
});
