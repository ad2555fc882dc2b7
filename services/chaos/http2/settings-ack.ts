// The one lie the session must see before the pipeline routes the request:
// `/h2/settings?mode=never-ack` withholds the ACK of the client's SETTINGS,
// and that ACK is due as soon as the SETTINGS is read (RFC 9113 §6.5.3). The
// session holds the ACK of the client's first SETTINGS until the connection's
// first request is read (at most 100 ms) and asks here whether that request is
// this lie; the lie only counts as a connection's first request.
import type { HeaderField } from './hpack.js';

const NEVER_ACK_PATH = '/h2/settings?';

/** Whether the request's `:path` is /h2/settings with mode=never-ack. */
export function withholdsSettingsAck(fields: readonly HeaderField[]): boolean {
  for (const [name, value] of fields) {
    if (name !== ':path') continue;
    if (!value.startsWith(NEVER_ACK_PATH)) return false;
    return new URLSearchParams(value.slice(NEVER_ACK_PATH.length)).get('mode') === 'never-ack';
  }
  return false;
}
