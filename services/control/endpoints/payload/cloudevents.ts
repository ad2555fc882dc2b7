import { CLOUDEVENTS_PARAMS, validCloudEvent } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'cloudevents',
  path: '/cloudevents',
  category: 'payload',
  summary: 'Twin of /cloudevents: a valid CloudEvents 1.0 event, structured (application/cloudevents+json) or, with binary=true, as ce-* headers and the data (mode is accepted, no defect applied)',
  params: CLOUDEVENTS_PARAMS,
  headers: ['ce-specversion', 'ce-id', 'ce-source', 'ce-type', 'ce-subject', 'ce-time'],
  handle(ctx, { binary }) {
    const answer = validCloudEvent(binary);
    ctx.send(answer.status, answer.contentType, answer.body, undefined, answer.headers);
  },
});
