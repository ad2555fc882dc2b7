import { KINDS_METHODS, KINDS_PARAMS, kindsBody, kindsLocation } from '../../../../shared/content/redirects.js';
import { examCarry } from '../../../../shared/primitives/exam-param.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'redirect-kinds',
  path: '/redirect-kinds',
  methods: [...KINDS_METHODS],
  category: 'redirects',
  transports: HTTP1_AND_H2,
  summary: '301, 302, 303, 307 or 308 (code) to /redirect-kinds/target, which reports the method and body it received: method rewriting made visible',
  params: KINDS_PARAMS,
  headers: ['Location', 'X-Chaos-Redirect-Code', 'X-Chaos-Request-Method'],
  docs: {
    modeParam: 'code',
  },
  handle(ctx, { code }) {
    // The request body, if any, was read and discarded: only the target reports one.
    const method = ctx.req.method;
    sendComplete(ctx, Number(code), 'application/json', kindsBody(code, method), { 'Redirect-Code': code, 'Request-Method': method }, [
      // A client exam's step id rides along, so the target is recorded under the same step (docs/exam.md).
      ['Location', kindsLocation(code) + examCarry(ctx.req.query)],
    ]);
  },
});
