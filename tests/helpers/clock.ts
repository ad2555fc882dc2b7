// Timing tests: where in its millisecond the next timer is set or request goes out.

/** Busy for `ms` (often a fraction of a millisecond): the loop's clock does not move meanwhile. */
export function spin(ms: number): void {
  const start = performance.now();
  while (performance.now() - start < ms) {
    /* on purpose */
  }
}
