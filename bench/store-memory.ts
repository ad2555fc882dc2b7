// Memory of the in-memory store at its cap: 200,000 /retry-mismatch records
// whose ids are 128 characters long (the longest allowed). Keys are digests,
// so the figure does not grow with the ids. Run: node --expose-gc dist/bench/store-memory.js
import { retryStoreKey } from '../shared/content/fault-injection/index.js';
import { MemoryStore } from '../shared/store/memory.js';

const KEYS = 200_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
gc();
const before = process.memoryUsage().heapUsed;
const store = new MemoryStore();
for (let i = 0; i < KEYS; i++) await store.countInWindow(retryStoreKey(`${'x'.repeat(122)}${String(i).padStart(6, '0')}`), 60_000);
gc();
const used = process.memoryUsage().heapUsed - before;
process.stdout.write(`${store.size} keys at the cap: ${(used / 1048576).toFixed(1)} MiB of heap, ${Math.round(used / store.size)} B per key\n`);
