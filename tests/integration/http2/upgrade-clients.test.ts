// Real clients taking the h2c upgrade on the chaos port (RFC 7540 §3.2),
// driven by scripts/scorecard/h2c-table.ts as the client scorecard drives them:
// curl --http2 on an http:// URL (it asks for h2c with every cleartext
// request), nghttp -u, and Python's h2 driven by hand
// (scripts/scorecard/h2c-python-client.py: httpx and Node's http2 have no h2c
// upgrade). Each cell is what the client said, as measured on this machine,
// and is published in docs/http2.md ("Clients and the upgrade"); an ordinary
// endpoint is the baseline that must not be upgraded.
import t from 'tap';
import { curlH2c as curlAt, H2C_PATHS, nghttpH2c as nghttpAt, pythonH2c as pythonAt } from '../../../scripts/scorecard/h2c-table.js';
import { startChaos } from '../../helpers/servers.js';

const { port } = await startChaos(t, { idleTimeoutMs: 2000 });
const base = `http://127.0.0.1:${port}`;
const curlH2c = (path: string): Promise<string> => curlAt(base, path);
const nghttpH2c = (path: string): Promise<string> => nghttpAt(base, path);
const pythonH2c = (paths: readonly string[]): Promise<string[]> => pythonAt(base, paths);

/** path → what curl --http2, nghttp -u and Python h2 said (measured on this machine; docs/http2.md). */
const CELLS: readonly (readonly [path: string, curl: RegExp, nghttp: RegExp, python: RegExp])[] = [
  // Not upgraded (an ordinary endpoint): curl takes the HTTP/1.1 answer, nghttp -u gives up.
  ['/status/200', /^exit 0, HTTP\/1\.1 200, \d+ bytes$/, /^not processed; HTTP Upgrade failed$/, /^200$/],
  ['/h2/frames?mode=unknown-type', /^exit 0, HTTP\/2 200, \d+ bytes$/, /^status 200$/, /^101, 200, \d+ bytes$/],
  ['/h2/rst', /^exit 92: HTTP\/2 stream N was not closed cleanly: INTERNAL_ERROR$/, /^not processed$/, /^101, 200, 6 bytes, StreamReset INTERNAL_ERROR$/],
  ['/h2/goaway?mode=zero', /^exit 16: Error in the HTTP2 framing layer$/, /^not processed; GOAWAY NO_ERROR$/, /^101, ConnectionTerminated NO_ERROR$/],
  ['/h2/headers?mode=uppercase', /^exit 92: .*PROTOCOL_ERROR$/, /^not processed; Invalid HTTP header field/, /^101, ProtocolError: Received uppercase header name/],
  ['/h2/settings?mode=max-frame-invalid', /^exit 16: Error in the HTTP2 framing layer$/, /^not processed$/, /^101, InvalidSettingsValueError: Setting 5 has invalid value 1000$/],
  // The /h2/upgrade lies: nghttp2 (curl, nghttp) wants SETTINGS first; h2 does not check, and waits on HTTP/1.1 bytes read as a frame.
  ['/h2/upgrade?mode=lie-101-then-h1', /^exit 16: Error in the HTTP2 framing layer$/, /^not processed; Remote peer returned unexpected data while we expected SETTINGS frame/, /^101, connection closed$/],
  ['/h2/upgrade?mode=no-settings-frame', /^exit 16: Error in the HTTP2 framing layer$/, /^not processed; Remote peer returned unexpected data while we expected SETTINGS frame/, /^101, 200, \d+ bytes$/],
];

t.test('the cells are the rows of the scorecard\'s h2c table', async (t) => {
  t.same(CELLS.map(([path]) => path), H2C_PATHS);
});

t.test('curl --http2 (the h2c upgrade on cleartext)', async (t) => {
  for (const [path, expected] of CELLS) t.match(await curlH2c(path), expected, path);
});

t.test('nghttp -u', async (t) => {
  for (const [path, , expected] of CELLS) t.match(await nghttpH2c(path), expected, path);
});

t.test('Python h2 by hand', async (t) => {
  const cells = await pythonH2c(CELLS.map(([path]) => path));
  CELLS.forEach(([path, , , expected], i) => t.match(cells[i], expected, path));
});
