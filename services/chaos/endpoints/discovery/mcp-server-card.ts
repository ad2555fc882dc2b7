import type { Config } from '../../../../shared/config/config.js';
import {
  CONFLICT_GROUP,
  controlRemote,
  CORS_ANY,
  documentBody,
  LINKED_PATHS,
  MCP_PROTOCOL_VERSIONS,
  perConfig,
  SERVER_CARD_SCHEMA,
  serverCard,
} from '../../../../shared/content/discovery.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

// The control host's server card with one lie per mode.
const MODES = ['missing-transport', 'version-mismatch', 'transport-404', 'invalid-schema'] as const;
type Mode = (typeof MODES)[number];

/** A real MCP revision that the control host's /mcp does not speak. */
export const MISMATCHED_PROTOCOL_VERSION = '2024-11-05';

const NOTES: Readonly<Record<Mode, string>> = {
  'missing-transport': 'the card has no remotes: nothing says where or how to connect',
  'version-mismatch': `the remote claims protocol ${MISMATCHED_PROTOCOL_VERSION} only; the endpoint negotiates ${MCP_PROTOCOL_VERSIONS.join(', ')}`,
  'transport-404': 'the remote url answers 404',
  'invalid-schema': 'the card breaks its own $schema: name without a namespace, a version range, an unknown transport type',
};

interface Variant {
  readonly body: Buffer;
  readonly claim: Readonly<Record<string, string>>;
}

const variants = perConfig((config: Config): Readonly<Record<Mode, Variant>> => {
  const control = config.urls.control;
  const remote = controlRemote(control);
  // Not /mcp: the chaos host serves its own lying MCP server there.
  const deadUrl = `${config.urls.base}${LINKED_PATHS.mcp}-gone`;
  return {
    'missing-transport': {
      body: documentBody(serverCard(control, undefined)),
      claim: { 'Claims-Transport': 'none' },
    },
    'version-mismatch': {
      body: documentBody(serverCard(control, [{ ...remote, supportedProtocolVersions: [MISMATCHED_PROTOCOL_VERSION] }])),
      claim: { 'Claims-Protocol-Version': MISMATCHED_PROTOCOL_VERSION },
    },
    'transport-404': {
      body: documentBody(serverCard(control, [{ ...remote, url: deadUrl }])),
      claim: { 'Claims-Transport': deadUrl },
    },
    'invalid-schema': {
      // Valid JSON, invalid card: each override breaks one rule of the schema.
      body: documentBody(
        serverCard(control, [{ ...remote, type: 'websocket' }], { name: 'chaos control', version: '^1.0.0' }),
      ),
      claim: { 'Claims-Schema': SERVER_CARD_SCHEMA },
    },
  };
});

export default defineChaosEndpoint({
  id: 'mcp-server-card',
  path: '/.well-known/mcp/server-card.json',
  category: 'discovery',
  transports: HTTP1_AND_H2,
  summary: 'MCP server card with no transport, a protocol-version mismatch, a dead transport URL or a schema-invalid body',
  params: { mode: oneOf(MODES, { default: 'missing-transport', description: 'which part of the card lies' }) },
  headers: [
    'X-Chaos-Conflict-Group',
    'X-Chaos-Mcp-Mode',
    'X-Chaos-Mcp-Note',
    'X-Chaos-Claims-Transport',
    'X-Chaos-Claims-Protocol-Version',
    'X-Chaos-Claims-Schema',
  ],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { mode }) {
    const variant = variants(ctx.config)[mode];
    const extra = { 'Conflict-Group': CONFLICT_GROUP, 'Mcp-Mode': mode, 'Mcp-Note': NOTES[mode], ...variant.claim };
    sendComplete(ctx, 200, 'application/json', variant.body, extra, CORS_ANY);
  },
});
