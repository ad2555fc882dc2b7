// Loaded into a server process with --import (bench/held-gc.ts): every GC
// pause of the process and every stall of its event loop, stamped on
// CLOCK_MONOTONIC (the clock bench/held-client.c stamps its arrivals with),
// written as JSON to GC_LOG_FILE when the process exits. A stall is a gap
// longer than STALL_MS between two runs of a 1 ms interval: the loop did
// something else (GC, our JS, a syscall) or the process waited for a CPU.
import { writeFileSync } from 'node:fs';
import { performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

const file = process.env.GC_LOG_FILE;
const STALL_MS = 3;

/** CLOCK_MONOTONIC in ms at performance.now() = 0 (node's hrtime is CLOCK_MONOTONIC). */
const originMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();

/** [start (monotonic ms), duration ms, kind (perf_hooks constants: 1 minor, 4 major, 8 incremental, 16 weak callbacks)]. */
const gcs: [number, number, number][] = [];
/** [start (monotonic ms), gap ms]. */
const stalls: [number, number][] = [];

if (file) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcs.push([originMs + entry.startTime, entry.duration, (entry as PerformanceEntry & { readonly detail?: { readonly kind?: number } }).detail?.kind ?? 0]);
  }).observe({ entryTypes: ['gc'] });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > STALL_MS) stalls.push([originMs + last, now - last]);
    last = now;
  }, 1).unref();
  process.on('exit', () => writeFileSync(file, JSON.stringify({ gcs, stalls })));
}
