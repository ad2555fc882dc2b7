// The /infinite body cap (SPEC §8): 20 KB, and X-Not-Infinite-Truncated when cut.

export const BODY_CAP = 20_480;

export interface Rendered {
  readonly body: Buffer;
  /** The body was cut to fit BODY_CAP. */
  readonly truncated: boolean;
}

/** What a shortened text ends with. */
export const CUT_MARK = ' …';

/**
 * The longest prefix of `text`, ended at a word boundary and marked with
 * CUT_MARK, whose `measure` (e.g. its escaped or JSON-encoded byte length) is
 * at most `max`; '' when even the mark does not fit. Cutting the raw text and
 * measuring its encoding means an entity or escape is never split.
 */
export function cutText(text: string, max: number, measure: (s: string) => number): string {
  let end = Math.min(text.length, Math.max(0, max));
  for (;;) {
    let cut = text.slice(0, end);
    const space = cut.lastIndexOf(' ');
    if (space > 0) cut = cut.slice(0, space);
    const code = cut.charCodeAt(cut.length - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut = cut.slice(0, -1); // never half a surrogate pair
    const candidate = cut.trimEnd() + CUT_MARK;
    const size = measure(candidate);
    if (size <= max) return candidate;
    if (end === 0) return '';
    // Strictly shrinking, so the loop ends.
    end = Math.max(0, Math.min(space > 0 ? space : end - 1, end - (size - max)));
  }
}
