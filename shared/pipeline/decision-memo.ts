// The pipeline's remembered decisions (docs/architecture.md, "Remembered
// decisions") and the recordings a transport keeps with them. A request served
// by an endpoint is decided by its path and query alone, so that decision is
// kept for the next identical request; a replayable endpoint's transport may
// keep its first whole answers beside it, within one budget for all of them.

/** What all the recordings of one generation of remembered decisions may keep, in bytes, together. */
export const MAX_RECORDED_BYTES = 4 * 1024 * 1024;

/**
 * Requests' routing decisions kept for their next identical request; past
 * this many the memo starts again empty (a crawler of the infinite namespace
 * sends few repeats).
 */
const MAX_REMEMBERED_DECISIONS = 4096;

/** Targets longer than this (path and query) are decided afresh every time: traffic repeats short ones. */
const MAX_REMEMBERED_TARGET = 512;

/** The bytes one generation of remembered decisions may still record (see Recordings). */
export interface RecordingBudget {
  left: number;
}

/**
 * A transport's recordings of a replayable endpoint's responses for one
 * remembered decision, by its own variant index (HTTP version, keep-alive,
 * method, a TLS mode): kept with the decision, dropped with it. What they keep is
 * bounded for all decisions together (MAX_RECORDED_BYTES, renewed when the
 * remembered decisions start again empty): a client varying seeds and
 * variants cannot pin more than that.
 */
export class Recordings {
  readonly byVariant: unknown[] = [];

  constructor(private readonly budget: RecordingBudget) {}

  /** Takes `bytes` of the budget for a recording; false, and nothing taken, when they do not fit. */
  reserve(bytes: number): boolean {
    if (bytes > this.budget.left) return false;
    this.budget.left -= bytes;
    return true;
  }
}

/** What the memo keeps of a decision: its values and clamps are frozen once remembered. */
export interface MemoDecision {
  readonly values: Readonly<Record<string, unknown>>;
  readonly clamped: readonly string[];
}

/** Served decisions by path, then query, bounded in count; each generation with its own recording budget. */
export class DecisionMemo<D extends MemoDecision> {
  readonly #byPath = new Map<string, Map<string, D>>();
  #count = 0;
  /** What the remembered decisions' recordings may still keep; a new one each time they start again. */
  #budget: RecordingBudget = { left: MAX_RECORDED_BYTES };

  /** The decision remembered for this target, if any. */
  get(path: string, query: string): D | undefined {
    return this.#byPath.get(path)?.get(query);
  }

  /** The budget a new decision's recordings draw from. */
  get recordingBudget(): RecordingBudget {
    return this.#budget;
  }

  /**
   * Keeps `decision` for the target. The strings must be copies of their own
   * (see detached): a kept key must not pin a request's whole head.
   */
  remember(path: string, query: string, decision: D): void {
    if (this.#count >= MAX_REMEMBERED_DECISIONS) {
      this.#byPath.clear();
      this.#count = 0;
      this.#budget = { left: MAX_RECORDED_BYTES };
    }
    let byQuery = this.#byPath.get(path);
    if (byQuery === undefined) this.#byPath.set(path, (byQuery = new Map()));
    // Shared by every request with this target from now on: no handler may change them.
    Object.freeze(decision.values);
    Object.freeze(decision.clamped);
    byQuery.set(query, decision);
    this.#count++;
  }
}

/** Whether a target is short enough to be remembered. */
export function rememberable(path: string, query: string): boolean {
  return path.length + query.length <= MAX_REMEMBERED_TARGET;
}

/**
 * `text` as a string of its own. A substring keeps the whole string it was cut
 * from alive (V8's sliced strings): the target is cut from the request's head.
 * The concatenation is flattened into a new string of text.length + 1
 * characters before the slice, so that is all the result keeps.
 */
export function detached(text: string): string {
  return text.length === 0 ? text : `${text} `.slice(0, -1);
}
