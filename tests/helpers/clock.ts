// Timing tests: where in its millisecond the next timer is set or request goes out.

/** Busy for `ms` (often a fraction of a millisecond): the loop's clock does not move meanwhile. */
export function spin(ms: number): void {
  const start = performance.now();
  while (performance.now() - start < ms) {
    /* on purpose */
  }
}

/**
 * Runs `body` with the process's uncaught-exception listeners swapped for one that collects what is thrown
 * (a timer callback's throw reaches node's timer as an uncaught exception would), then puts them back.
 */
export async function collectingUncaught(body: () => Promise<void>): Promise<unknown[]> {
  const thrown: unknown[] = [];
  const listeners = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  process.on('uncaughtException', (error) => thrown.push(error));
  try {
    await body();
  } finally {
    process.removeAllListeners('uncaughtException');
    for (const listener of listeners) process.on('uncaughtException', listener);
  }
  return thrown;
}
