import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { H2_ONLY } from '../../http2/declarations.js';
import { FLAG, headersFrame } from '../../http2/frames.js';
import { encodeInteger, encodeLiterals, type HeaderField } from '../../http2/hpack.js';
import { lieBody, lieData, lieFields, streamOf } from '../../http2/lies.js';

const MODES = [
  'uppercase', 'connection-header', 'no-status', 'duplicate-status', 'pseudo-after-regular', 'content-length-lie', 'te-not-trailers',
  'hpack-bad-index', 'hpack-huffman-eos', 'table-size-update-too-big',
] as const;
type Mode = (typeof MODES)[number];

/** The header block of each lie, from the honest fields (`:status` first). */
function block(mode: Mode, fields: HeaderField[]): Buffer {
  const [status, ...rest] = fields as [HeaderField, ...HeaderField[]];
  switch (mode) {
    case 'uppercase': return encodeLiterals([status, ['X-Chaos-Uppercase', 'true'], ...rest]);
    case 'connection-header': return encodeLiterals([...fields, ['connection', 'keep-alive']]);
    case 'no-status': return encodeLiterals(rest);
    case 'duplicate-status': return encodeLiterals([status, [':status', '204'], ...rest]);
    case 'pseudo-after-regular': return encodeLiterals([...rest, status]);
    case 'content-length-lie': return encodeLiterals([status, ...rest.filter(([name]) => name !== 'content-length'), ['content-length', '999']]);
    case 'te-not-trailers': return encodeLiterals([...fields, ['te', 'gzip']]);
    // Index 255: past the 61 static entries and our empty share of the dynamic table.
    case 'hpack-bad-index': return Buffer.concat([encodeLiterals(fields), Buffer.from(encodeInteger(255, 7, 0x80))]);
    // A Huffman string that spells EOS (30 one bits): "MUST be treated as a decoding error" (RFC 7541 §5.2).
    case 'hpack-huffman-eos': return Buffer.concat([encodeLiterals(fields), Buffer.from([0x00, 0x05]), Buffer.from('x-eos'), Buffer.from([0x84, 0xff, 0xff, 0xff, 0xfc])]);
    // A size update above the client's SETTINGS_HEADER_TABLE_SIZE (4096 unless it said otherwise): RFC 7541 §6.3.
    case 'table-size-update-too-big': return Buffer.concat([Buffer.from(encodeInteger(1 << 20, 5, 0x20)), encodeLiterals(fields)]);
  }
}

export default defineChaosEndpoint({
  id: 'h2-headers',
  path: '/h2/headers',
  category: 'http2',
  summary: 'HTTP/2 header lies: an uppercase name, a connection field, no or two :status, a pseudo-header after a regular one, content-length 999 for a shorter body, te other than trailers, or HPACK that cannot decode (bad index, EOS in Huffman, a table size update too big)',
  params: { mode: oneOf(MODES, { default: 'uppercase', description: 'which header lie' }) },
  headers: ['X-Chaos-Mode'],
  transports: H2_ONLY,
  handle(ctx, { mode }) {
    const stream = streamOf(ctx);
    const body = lieBody(ctx, mode);
    stream.session.write(headersFrame(stream.id, block(mode, lieFields(ctx, body.length, { Mode: mode })), false));
    lieData(stream.session, stream.id, body, FLAG.END_STREAM);
    stream.socketClosed();
  },
});
