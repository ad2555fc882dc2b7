import { COOKIES_PARAMS, chaosCookies, cookiesBody } from '../../../../shared/content/headers.js';
import type { Config } from '../../../../shared/config/config.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

const hostNames = new WeakMap<Config, string>();
/** The chaos host's own name, for the Domain attribute (computed once per config). */
function hostName(config: Config): string {
  let name = hostNames.get(config);
  if (name === undefined) {
    name = new URL(config.urls.base).hostname;
    hostNames.set(config, name);
  }
  return name;
}

export default defineChaosEndpoint({
  id: 'cookies',
  path: '/cookies',
  category: 'headers',
  transports: HTTP1_AND_H2,
  summary: 'Set-Cookie lines that are wrong (`mode`): malformed, the same name on two domains or paths, already expired, over 4096 bytes, SameSite=None without Secure, or 200 of them',
  params: COOKIES_PARAMS,
  headers: ['X-Chaos-Cookie-Mode', 'X-Chaos-Cookie-Count'],
  handle(ctx, { mode }) {
    const cookies = chaosCookies(mode, hostName(ctx.config));
    sendComplete(
      ctx,
      200,
      'application/json',
      cookiesBody(mode, cookies.length),
      { 'Cookie-Mode': mode, 'Cookie-Count': cookies.length },
      cookies.map((cookie) => ['Set-Cookie', cookie] as const),
    );
  },
});
