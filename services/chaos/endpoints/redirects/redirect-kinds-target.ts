import { KINDS_BODY_MAX, KINDS_METHODS, KINDS_TARGET_PARAMS, KINDS_TARGET_PATH, kindsTargetBody } from '../../../../shared/content/redirects.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

const NO_BODY = Buffer.alloc(0);

export default defineChaosEndpoint({
  id: 'redirect-kinds-target',
  path: KINDS_TARGET_PATH,
  methods: [...KINDS_METHODS],
  category: 'redirects',
  transports: noH2(NO_H2.body),
  summary: 'Where /redirect-kinds points: 200 reporting the method, Content-Type and body (first 1 KiB) it received',
  params: KINDS_TARGET_PARAMS,
  headers: ['X-Chaos-Request-Method'],
  wire: {
    // The parser keeps the first KINDS_BODY_MAX bytes of the body; the rest is counted only.
    capture: { body: { max: KINDS_BODY_MAX } },
  },
  handle(ctx, { code }) {
    const { req } = ctx;
    const body = kindsTargetBody(req.method, code, req.headers.get('content-type'), req.body ?? NO_BODY, req.bodyBytes);
    sendComplete(ctx, 200, 'application/json', body, { 'Request-Method': req.method }, [['Cache-Control', 'no-store']]);
  },
});
