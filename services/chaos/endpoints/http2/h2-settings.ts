import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { dataFrame, headerBlockFrames, headersFrame, SETTING, settingsFrame } from '../../http2/frames.js';
import { encodeInteger, encodeLiterals } from '../../http2/hpack.js';
import { lieBody, lieFields, namingGoaway, streamOf } from '../../http2/lies.js';

const MODES = ['max-frame-invalid', 'enable-push-1', 'initial-window-overflow', 'never-ack', 'header-table-shrink-lie'] as const;
type Mode = (typeof MODES)[number];

/** The SETTINGS value each invalid-value lie sends (RFC 9113 §6.5.2 says what is allowed). */
const LIES: Readonly<Partial<Record<Mode, readonly [number, number]>>> = {
  'max-frame-invalid': [SETTING.MAX_FRAME_SIZE, 1000], // below the 16,384 minimum: PROTOCOL_ERROR
  'enable-push-1': [SETTING.ENABLE_PUSH, 1], // "A server MUST NOT explicitly set this value to 1"
  'initial-window-overflow': [SETTING.INITIAL_WINDOW_SIZE, 2 ** 31], // above 2^31-1: FLOW_CONTROL_ERROR
};

/** How long never-ack holds its body: past a client's SETTINGS timeout (nghttp: 10 s), and a second inside MAX_RESPONSE_MS (the connection's cap). */
export const NEVER_ACK_HOLD_MS = 12_000;
const neverAckHoldMs = (maxResponseMs: number): number => Math.max(0, Math.min(NEVER_ACK_HOLD_MS, maxResponseMs - 1000));

/** The field the shrink lie inserts into the client's dynamic table; its size (name + value + 32) is the client's table size + 1. */
const ENTRY_NAME = 'x-chaos-table-entry';
/** The largest entry the lie writes (a bound on our own output; a client advertising more than this gets a legal block). */
const MAX_ENTRY_VALUE = 65_536;

/**
 * The shrink lie's header block: the honest fields, then `x-chaos-table-entry`
 * as a literal with incremental indexing (RFC 7541 §6.2.1) one octet larger
 * than the table the client allows, then that entry by dynamic index 62. An
 * entry larger than the table empties it and is not added (§4.4), so index 62
 * names nothing: the encoder used a table larger than the one it acknowledged.
 */
function shrinkLieBlock(fieldsBlock: Buffer, tableSize: number): Buffer {
  const valueLength = Math.min(MAX_ENTRY_VALUE, Math.max(0, tableSize + 1 - 32 - ENTRY_NAME.length));
  return Buffer.concat([
    fieldsBlock,
    Buffer.from([0x40, ...encodeInteger(ENTRY_NAME.length, 7, 0)]), Buffer.from(ENTRY_NAME, 'latin1'),
    Buffer.from(encodeInteger(valueLength, 7, 0)), Buffer.alloc(valueLength, 0x61),
    Buffer.from(encodeInteger(62, 7, 0x80)),
  ]);
}

export default defineChaosEndpoint({
  id: 'h2-settings',
  path: '/h2/settings',
  category: 'http2',
  summary: 'HTTP/2 SETTINGS lies: SETTINGS_MAX_FRAME_SIZE 1000, SETTINGS_ENABLE_PUSH 1 from a server, SETTINGS_INITIAL_WINDOW_SIZE 2^31 (each before the response, then a GOAWAY naming it); the client\'s SETTINGS never acknowledged (`never-ack`, the body held 12 s); or a header block that uses a dynamic table larger than the SETTINGS_HEADER_TABLE_SIZE acknowledged (`header-table-shrink-lie`)',
  params: { mode: oneOf(MODES, { default: 'max-frame-invalid', description: 'which SETTINGS lie' }) },
  headers: ['X-Chaos-Mode', 'X-Chaos-Header-Table-Size'],
  transports: H2_ONLY,
  holding: { longestMs: (config) => neverAckHoldMs(config.maxResponseMs), when: ({ mode }) => mode === 'never-ack' },
  handle(ctx, { mode }) {
    const stream = streamOf(ctx);
    const { session, id } = stream;
    const body = lieBody(ctx, mode);
    if (mode === 'never-ack') {
      // The session withheld the ACK (settings-ack.ts); the response waits so that a client with a SETTINGS timeout meets it.
      session.write(headersFrame(id, lieFields(ctx, body.length, { Mode: mode }), false));
      session.setTimer(neverAckHoldMs(ctx.config.maxResponseMs), () => void stream.data(body, true));
      return;
    }
    if (mode === 'header-table-shrink-lie') {
      const tableSize = session.peerHeaderTableSize;
      const block = shrinkLieBlock(encodeLiterals(lieFields(ctx, body.length, { Mode: mode, 'Header-Table-Size': tableSize })), tableSize);
      session.write(headerBlockFrames(id, block, false, session.peerMaxFrame));
    } else {
      session.write(settingsFrame([LIES[mode] as readonly [number, number]]));
      session.write(headersFrame(id, lieFields(ctx, body.length, { Mode: mode }), false));
    }
    session.write(dataFrame(id, body, true));
    // A client that stopped at the SETTINGS or the block never read the fields: the GOAWAY names the lie.
    session.write(namingGoaway(id, mode));
    session.destroyAfterFlush();
  },
});
