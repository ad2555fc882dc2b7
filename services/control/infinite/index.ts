// The infinite-content generator: a pure function of (format, type, tail,
// links, fields) to at most 20 KB of bytes. The HTTP side lives in
// services/control/endpoints/infinite/infinite.ts; benchmarks call this directly.
import { renderHtml, MAX_LINKS } from './html.js';
import { renderJson } from './json.js';
import type { InfiniteFormat, InfiniteType } from './model.js';

export { BODY_CAP, type Rendered } from './cap.js';
export { MAX_LINKS } from './html.js';
export { DEFAULT_FIELDS, INFINITE_FORMATS, INFINITE_TYPES, MAX_TAIL_CHARS, MAX_TAIL_SEGMENTS, segmentCount } from './model.js';
export type { InfiniteFormat, InfiniteType } from './model.js';

export interface RenderOptions {
  /** html: links shown, 0 to 10 (default 10). */
  readonly links?: number;
  /** json: field names (default: the type's fields). */
  readonly fields?: readonly string[];
}

export function renderInfinite(format: InfiniteFormat, type: InfiniteType, tail: string, options: RenderOptions = {}) {
  return format === 'html' ? renderHtml(type, tail, options.links ?? MAX_LINKS) : renderJson(type, tail, options.fields);
}
