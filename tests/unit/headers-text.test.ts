// The text forms of the header helpers (heads built as one string on the chaos
// hot path) say exactly what the header-list forms say, formatted.
import t from 'tap';
import {
  addChaosHeaders, addClampedHeader, chaosLines, clampedLine, dateLine, formatHead, headerLines, httpDate, statusLine,
} from '../../shared/primitives/headers.js';

t.test('chaosLines and clampedLine are addChaosHeaders and addClampedHeader as text', async (t) => {
  const extra = { Status: 418, 'Flaky-Failed': false, 'Bytes-Seed': 'a%20b', Empty: '' };
  t.equal(chaosLines(extra), headerLines(addChaosHeaders([], extra)));
  t.equal(chaosLines({}), '');
  for (const clamped of [[], ['code=599'], ['n=1', 'm=2']]) t.equal(clampedLine(clamped), headerLines(addClampedHeader([], clamped)));
});

t.test('statusLine is the cached standard status line; formatHead keeps a custom reason', async (t) => {
  t.equal(statusLine(200), 'HTTP/1.1 200 OK\r\n');
  t.equal(statusLine(200), statusLine(200));
  t.equal(statusLine(599), 'HTTP/1.1 599 Unknown\r\n');
  t.equal(formatHead(200, 'OK', [['A', 'b']]), 'HTTP/1.1 200 OK\r\nA: b\r\n\r\n');
  t.equal(formatHead(200, 'Fine', []), 'HTTP/1.1 200 Fine\r\n\r\n');
  t.equal(formatHead(404, '', []), 'HTTP/1.1 404 \r\n\r\n');
});

t.test('dateLine is the Date line of httpDate, per second', async (t) => {
  const now = Date.UTC(2026, 0, 2, 3, 4, 5, 600);
  t.equal(dateLine(now), `Date: ${httpDate(now)}\r\n`);
  t.equal(dateLine(now), 'Date: Fri, 02 Jan 2026 03:04:05 GMT\r\n');
  t.equal(dateLine(now + 1000), 'Date: Fri, 02 Jan 2026 03:04:06 GMT\r\n');
});
