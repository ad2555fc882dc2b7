import type { Config } from '../../../../shared/config/config.js';
import { CONFLICT_GROUP, CORS_ANY, documentBody, perConfig, protectedResourceMetadata } from '../../../../shared/content/discovery.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

const MODES = ['issuer-mismatch', 'resource-mismatch', 'dead-authorization-server'] as const;
type Mode = (typeof MODES)[number];

const NOTES: Readonly<Record<Mode, string>> = {
  'issuer-mismatch': 'authorization_servers names this host, whose own RFC 8414 and OpenID documents name other issuers',
  'resource-mismatch': 'resource is not the URL this metadata was fetched for (RFC 9728 section 3.3 says reject it)',
  'dead-authorization-server': 'authorization_servers names an issuer whose metadata URLs answer 404',
};

interface Variant {
  readonly body: Buffer;
  readonly claim: Readonly<Record<string, string>>;
}

/** The issuer path of dead-authorization-server: nothing is served under it on the chaos host. */
export const DEAD_ISSUER_PATH = '/no-such-issuer';

const variants = perConfig((config: Config): Readonly<Record<Mode, Variant>> => {
  const base = config.urls.base;
  const deadIssuer = base + DEAD_ISSUER_PATH;
  const mismatched = `${base}/mcp`;
  return {
    'issuer-mismatch': {
      body: documentBody(protectedResourceMetadata(base, [base])),
      claim: { 'Claims-Authorization-Servers': base },
    },
    'resource-mismatch': {
      body: documentBody(protectedResourceMetadata(mismatched, [base])),
      claim: { 'Claims-Resource': mismatched },
    },
    'dead-authorization-server': {
      body: documentBody(protectedResourceMetadata(base, [deadIssuer])),
      claim: { 'Claims-Authorization-Servers': deadIssuer },
    },
  };
});

export default defineChaosEndpoint({
  id: 'oauth-protected-resource',
  path: '/.well-known/oauth-protected-resource',
  category: 'discovery',
  transports: HTTP1_AND_H2,
  summary: 'RFC 9728 resource metadata whose authorization server or resource contradicts what this host serves',
  params: { mode: oneOf(MODES, { default: 'issuer-mismatch', description: 'which claim contradicts the others' }) },
  headers: [
    'X-Chaos-Conflict-Group',
    'X-Chaos-Protected-Resource-Mode',
    'X-Chaos-Protected-Resource-Note',
    'X-Chaos-Claims-Authorization-Servers',
    'X-Chaos-Claims-Resource',
  ],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { mode }) {
    const variant = variants(ctx.config)[mode];
    const extra = {
      'Conflict-Group': CONFLICT_GROUP,
      'Protected-Resource-Mode': mode,
      'Protected-Resource-Note': NOTES[mode],
      ...variant.claim,
    };
    sendComplete(ctx, 200, 'application/json', variant.body, extra, CORS_ANY);
  },
});
