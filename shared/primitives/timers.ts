// node's timers count whole milliseconds of the loop's clock, so a timer can
// fire up to 1 ms before its delay has passed (held.js saw /slow?ms=2000
// answered after 1999.3 ms, and control's /mix?delay=2 after 1.6 ms). A delay
// we announce is never cut short: whoever arms a timer for one keeps its due
// time and, when the timer fires early, arms it again for what msLeft says.

/** Whole milliseconds still to wait until `due` (a performance.now() time); 0 once it has come. */
export function msLeft(due: number): number {
  const left = due - performance.now();
  return left > 0 ? Math.ceil(left) : 0;
}
