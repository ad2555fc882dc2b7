// The HTTP/2 family's parameters (issue 28, docs/http2.md): the control twins
// take the chaos /h2/* lies' parameters, names, ranges and defaults alike, so a
// client tried on one can be pointed at the other unchanged. (The chaos
// definitions keep their own copies today; tests/integration/http2/twins.test.ts
// compares the two tables.)
import { int, oneOf } from '../primitives/params.js';

export const RST_PARAMS = {
  at: int({ min: 0, max: 16_384, default: 6, description: 'body bytes the chaos twin sends before its reset (the twin sends them all)' }),
  code: int({ min: 0, max: 13, default: 2, description: 'the RST_STREAM error code the chaos twin sends (the twin sends none)' }),
};

export const GOAWAY_MODES = ['zero', 'max-then-close', 'increasing', 'after-response'] as const;
export const GOAWAY_PARAMS = {
  mode: oneOf(GOAWAY_MODES, { default: 'zero', description: 'which GOAWAY lie the chaos twin tells' }),
  code: int({ min: 0, max: 13, default: 0, description: 'the chaos twin\'s GOAWAY error code (the twin\'s GOAWAY is NO_ERROR)' }),
};

export const SETTINGS_MODES = ['max-frame-invalid', 'enable-push-1', 'initial-window-overflow', 'never-ack', 'header-table-shrink-lie'] as const;
export const SETTINGS_PARAMS = {
  mode: oneOf(SETTINGS_MODES, { default: 'max-frame-invalid', description: 'which SETTINGS lie the chaos twin tells' }),
};

export const FRAMES_MODES = ['oversize-data', 'data-after-end-stream', 'continuation-orphan', 'headers-on-closed-stream', 'padding-lie', 'unknown-type'] as const;
export const H2_FRAMES_PARAMS = {
  mode: oneOf(FRAMES_MODES, { default: 'oversize-data', description: 'which framing lie the chaos twin tells' }),
  size: int({ min: 16_385, max: 65_536, default: 20_000, description: 'oversize-data: the body length (the twin splits it into frames the client allows)' }),
};

export const HEADERS_MODES = [
  'uppercase', 'connection-header', 'no-status', 'duplicate-status', 'pseudo-after-regular', 'content-length-lie', 'te-not-trailers',
  'hpack-bad-index', 'hpack-huffman-eos', 'table-size-update-too-big',
] as const;
export const HEADERS_PARAMS = {
  mode: oneOf(HEADERS_MODES, { default: 'uppercase', description: 'which header lie the chaos twin tells' }),
};

export const STALL_PARAMS = {
  after: int({ min: 0, max: 16_384, default: 6, description: 'body bytes the chaos twin sends before it stalls (the twin sends the whole body)' }),
};

export const UPLOAD_STALL_PARAMS = {
  ms: int({ min: 100, max: 120_000, default: 10_000, description: 'how long the chaos twin stalls the upload (the twin never does)' }),
};

export const FLOW_MODES = ['window-overflow', 'exceed-window', 'zero-window-forever'] as const;
export const FLOW_PARAMS = {
  mode: oneOf(FLOW_MODES, { default: 'window-overflow', description: 'which flow-control lie the chaos twin tells' }),
};

export const PUSH_MODES = ['when-disabled', 'even-parent', 'push-then-rst'] as const;
export const PUSH_PARAMS = {
  mode: oneOf(PUSH_MODES, { default: 'when-disabled', description: 'which push lie the chaos twin tells' }),
};

export const UPGRADE_MODES = ['lie-101-then-h1', 'no-settings-frame'] as const;
export const UPGRADE_PARAMS = {
  mode: oneOf(UPGRADE_MODES, { default: 'lie-101-then-h1', description: 'which h2c upgrade lie the chaos twin tells' }),
};

/**
 * A body larger than a client's initial stream window (65,535): the flow twin
 * sends it, so the client's WINDOW_UPDATEs and our pauses for them are
 * exercised (RFC 9113 §6.9), and a request body is read the same way.
 */
export const FLOW_TWIN_BODY_BYTES = 192 * 1024;

/** The request body a twin reads (counted, never kept); past it the stream is reset (RFC 9113 §8.1.1 leaves the limit to us). */
export const MAX_TWIN_UPLOAD_BYTES = 1024 * 1024;
