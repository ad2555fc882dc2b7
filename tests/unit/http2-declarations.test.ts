// The chaos registry says, for every endpoint, whether its lie exists in
// HTTP/2 (issue 28, "Define which in the registry"): `h2` in its transports,
// or a `noH2` reason (a wire-only lie: a real 501 over HTTP/2 naming it). The
// WebSockets are their own protocol (a 421 over HTTP/2). docs/http2.md.
import t from 'tap';
import { serviceRegistries } from '../../services/registries.js';

const endpoints = serviceRegistries().chaos.endpoints;

t.test('every chaos endpoint declares h2 or why it has no HTTP/2 form', async (t) => {
  for (const endpoint of endpoints) {
    const spec = endpoint.transports;
    const protocols = spec?.protocols ?? ['http/1.1'];
    if (protocols.includes('websocket')) continue;
    const served = protocols.includes('h2');
    const reason = spec?.noH2;
    t.ok(served !== (reason !== undefined), `${endpoint.path}: ${served ? 'served over HTTP/2' : `no HTTP/2 form: ${reason ?? 'UNDECLARED'}`}`);
  }
});

t.test('the wire-only lies are the ones named in docs/http2.md', async (t) => {
  const wireOnly = endpoints.filter((e) => e.transports?.noH2 !== undefined).map((e) => e.path).sort();
  t.same(wireOnly, [
    '/anything/{path*}', '/chunked', '/dump', '/empty', '/garbage', '/keepalive-lie', '/llm/v1/chat/completions', '/llm/v1/messages',
    '/llm/v1/responses', '/llm/v1beta/models/{call}', '/mcp', '/redirect-kinds/target', '/slow-headers', '/status-line',
  ]);
});
