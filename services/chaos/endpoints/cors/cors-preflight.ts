import {
  DISAGREEING_HEADERS, DISAGREEING_METHODS, HUGE_MAX_AGE, NEGATIVE_MAX_AGE, PREFLIGHT_ALLOW_HEADERS, PREFLIGHT_ALLOW_METHODS,
  PREFLIGHT_MAX_AGE, PREFLIGHT_METHODS, PREFLIGHT_MODES, corsBody, type PreflightMode,
} from '../../../../shared/content/cors.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { chaosHead, defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

/** The preflight's Access-Control lines per mode; `bare-200` has none. */
function preflightLines(mode: PreflightMode, origin: string): HeaderList {
  const maxAge = mode === 'negative-max-age' ? NEGATIVE_MAX_AGE : mode === 'huge-max-age' ? HUGE_MAX_AGE : PREFLIGHT_MAX_AGE;
  return [
    ['Access-Control-Allow-Origin', origin],
    ['Access-Control-Allow-Methods', mode === 'methods-disagree' ? DISAGREEING_METHODS : PREFLIGHT_ALLOW_METHODS],
    ['Access-Control-Allow-Headers', mode === 'headers-disagree' ? DISAGREEING_HEADERS : PREFLIGHT_ALLOW_HEADERS],
    ['Access-Control-Max-Age', maxAge],
    ['Vary', 'Origin'],
  ];
}

/** The actual response's lines: none after actual-refuses; in the disagree modes, the truth the preflight withheld. */
function actualLines(mode: PreflightMode, origin: string): HeaderList {
  if (mode === 'actual-refuses') return [];
  const lines: HeaderList = [['Access-Control-Allow-Origin', origin], ['Vary', 'Origin']];
  if (mode === 'methods-disagree') lines.push(['Access-Control-Allow-Methods', PREFLIGHT_ALLOW_METHODS]);
  if (mode === 'headers-disagree') lines.push(['Access-Control-Allow-Headers', PREFLIGHT_ALLOW_HEADERS]);
  return lines;
}

export default defineChaosEndpoint({
  id: 'cors-preflight',
  path: '/cors-preflight',
  methods: [...PREFLIGHT_METHODS],
  category: 'cors',
  transports: HTTP1_AND_H2,
  summary: 'A preflight (OPTIONS) that disagrees with the actual response, caches absurdly, or answers 200 with no CORS headers',
  params: {
    mode: oneOf(PREFLIGHT_MODES, { default: 'actual-refuses', description: 'how the preflight and the actual response disagree' }),
  },
  headers: [
    'Access-Control-Allow-Origin', 'Access-Control-Allow-Methods', 'Access-Control-Allow-Headers', 'Access-Control-Max-Age', 'Vary',
    'X-Chaos-Cors-Mode',
  ],
  handle(ctx, { mode }) {
    const origin = ctx.req.headers.get('origin') ?? '*';
    const extra = { 'Cors-Mode': mode };
    if (ctx.req.method !== 'OPTIONS') {
      sendComplete(ctx, 200, 'application/json', corsBody('/cors-preflight', mode, ctx.req.headers.get('origin'), ctx.req.method), extra, actualLines(mode, origin));
      return;
    }
    if (mode === 'bare-200') {
      // A 200 a browser reads as a preflight that allows nothing cross-origin.
      sendComplete(ctx, 200, 'text/plain; charset=utf-8', Buffer.from('OK\n'), extra);
      return;
    }
    const headers = chaosHead(ctx, undefined, undefined, extra);
    headers.push(...preflightLines(mode, origin));
    // 204: no body and no Content-Length (RFC 9110 §8.6).
    ctx.wire.head(204, headers);
    ctx.wire.end();
  },
});
