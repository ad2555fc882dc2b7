// The WebSocket endpoints in the documents derived from the registries
// (issue 27): OpenAPI describes the upgrade (101, and the real 426 to a plain
// request) for exactly the endpoints that declare the websocket transport, on
// chaos and control alike.
import t from 'tap';
import { serviceRegistries } from '../../services/registries.js';
import { buildOpenApi } from '../../shared/catalog/openapi.js';
import { testConfig } from '../helpers/servers.js';

const config = testConfig();

for (const host of ['chaos', 'control'] as const) {
  t.test(`${host}: OpenAPI describes the upgrade of every /ws/* endpoint, and of no other`, async (t) => {
    const registries = serviceRegistries();
    const document = host === 'chaos' ? buildOpenApi(registries.chaos, config) : buildOpenApi(registries.control, config);
    const upgrading = Object.entries(document.paths).filter(([, item]) => item.get?.responses['101'] !== undefined).map(([path]) => path).sort();
    const expected = host === 'chaos'
      ? ['/ws/close', '/ws/deflate', '/ws/frames', '/ws/handshake', '/ws/ping-flood', '/ws/pong-lie']
      : ['/ws/close', '/ws/deflate', '/ws/echo', '/ws/frames', '/ws/handshake', '/ws/ping-flood'];
    t.same(upgrading, expected);
    const frames = document.paths['/ws/frames']?.get;
    t.ok(frames?.responses['101']?.headers?.['Sec-WebSocket-Accept'], 'the 101 names Sec-WebSocket-Accept');
    t.ok(frames?.responses['426']?.headers?.Upgrade, 'the 426 names Upgrade');
    t.same(frames?.tags, ['websocket'], 'tagged with its category');
  });
}
