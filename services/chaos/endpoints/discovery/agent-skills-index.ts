import type { Config } from '../../../../shared/config/config.js';
import {
  CONFLICT_GROUP,
  controlDocuments,
  CORS_ANY,
  documentBody,
  LINKED_PATHS,
  perConfig,
  sha256Digest,
  SKILLS_SCHEMA,
  SKILLS_SCHEMA_STALE,
  skillsIndex,
} from '../../../../shared/content/discovery.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

// The control host's skills index with one lie per mode. The skill file itself
// lives on the control host (it is the well-formed one), so a digest or schema
// lie is checkable against real bytes.
const MODES = ['bad-digest', 'missing-schema', 'skill-404', 'stale-version'] as const;
type Mode = (typeof MODES)[number];

const NOTES: Readonly<Record<Mode, string>> = {
  'bad-digest': 'digest is not the SHA-256 of the bytes the skill url serves (it hashes the file plus one trailing newline)',
  'missing-schema': 'the index has no $schema reference',
  'skill-404': 'the skill url answers 404',
  'stale-version': '$schema declares the 0.1.0 draft while the entries use the 0.2.0 fields (type, url, digest)',
};

interface Variant {
  readonly body: Buffer;
  readonly claim: Readonly<Record<string, string>>;
}

const variants = perConfig((config: Config): Readonly<Record<Mode, Variant>> => {
  const { skill, skillDigest } = controlDocuments(config);
  const url = config.urls.control + LINKED_PATHS.skill;
  // A near miss that only a byte-exact check catches.
  const wrongDigest = sha256Digest(Buffer.concat([skill, Buffer.from('\n')]));
  const deadUrl = config.urls.base + LINKED_PATHS.skill;
  return {
    'bad-digest': {
      body: documentBody(skillsIndex({ schema: SKILLS_SCHEMA, url, digest: wrongDigest })),
      claim: { 'Claims-Digest': wrongDigest },
    },
    'missing-schema': {
      body: documentBody(skillsIndex({ schema: undefined, url, digest: skillDigest })),
      claim: { 'Claims-Schema': 'none' },
    },
    'skill-404': {
      body: documentBody(skillsIndex({ schema: SKILLS_SCHEMA, url: deadUrl, digest: skillDigest })),
      claim: { 'Claims-Skill-Url': deadUrl },
    },
    'stale-version': {
      body: documentBody(skillsIndex({ schema: SKILLS_SCHEMA_STALE, url, digest: skillDigest })),
      claim: { 'Claims-Schema': SKILLS_SCHEMA_STALE },
    },
  };
});

export default defineChaosEndpoint({
  id: 'agent-skills-index',
  path: '/.well-known/agent-skills/index.json',
  category: 'discovery',
  transports: HTTP1_AND_H2,
  summary: 'Agent Skills discovery index with a digest, schema-reference, dead-URL or stale-version lie',
  params: { mode: oneOf(MODES, { default: 'bad-digest', description: 'which part of the index lies' }) },
  headers: [
    'X-Chaos-Conflict-Group',
    'X-Chaos-Skills-Mode',
    'X-Chaos-Skills-Note',
    'X-Chaos-Claims-Digest',
    'X-Chaos-Claims-Schema',
    'X-Chaos-Claims-Skill-Url',
  ],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { mode }) {
    const variant = variants(ctx.config)[mode];
    const extra = { 'Conflict-Group': CONFLICT_GROUP, 'Skills-Mode': mode, 'Skills-Note': NOTES[mode], ...variant.claim };
    sendComplete(ctx, 200, 'application/json', variant.body, extra, CORS_ANY);
  },
});
