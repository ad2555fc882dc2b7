import { CLOUDEVENTS_PARAMS, chaosCloudEvent } from '../../../../shared/content/payload/index.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'cloudevents',
  path: '/cloudevents',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'A CloudEvent that breaks CloudEvents 1.0: binary attributes under a structured Content-Type, no id and source, specversion 2.0, a datacontenttype that lies, a numeric type, or base64 text where JSON data belongs',
  params: CLOUDEVENTS_PARAMS,
  headers: ['ce-specversion', 'ce-id', 'ce-source', 'ce-type', 'ce-subject', 'ce-time', 'X-Chaos-Cloudevents-Mode'],
  handle(ctx, { mode, binary }) {
    const answer = chaosCloudEvent(mode, binary);
    sendComplete(ctx, answer.status, answer.contentType, answer.body, { 'Cloudevents-Mode': mode }, answer.headers);
  },
});
