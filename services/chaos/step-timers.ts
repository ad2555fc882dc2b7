// One timer structure for the scheduled steps of every response (a /slow
// delay, each /drip slice): a min-heap of due times under one node timer,
// instead of a node Timeout, a closure and its context per step. A held
// response arms a step a second for seconds; each of those objects lived
// long enough to survive two scavenges, was promoted, and died in old space:
// 3000 held drips promoted about 0.5 MB per scavenge, and that garbage, not
// the live connections, set the peak RSS and the mark-compacts
// (bench/JOURNAL.md, issue 31). A Step belongs to its owner (a Wire) and is
// re-armed for each step, so a step allocates nothing that outlives it.
//
// Timing is the node timers' or better: a step never runs before its due
// time (node's timers count whole loop milliseconds and can fire up to 1 ms
// short; the heap is checked against performance.now() and the node timer
// armed again for what is left), and a step's callback runs unbatched
// (turn-writes.ts: a timed write keeps its time). Steps armed by a callback
// run on a later timer, never in the same pass, as with node's timers.
import { msLeft } from '../../shared/primitives/timers.js';
import { unbatched } from './turn-writes.js';

/** Index of a step that is not armed. */
const IDLE = -1;
/** Index of a step taken off the heap to run in the current pass. */
const FIRING = -2;

/** A reusable scheduled step: armed with a due time and a callback, run once, armed again by its owner. */
export class Step {
  due = 0;
  /** Position in the heap, or IDLE / FIRING. */
  index = IDLE;
  fn: (() => void) | undefined = undefined;

  /** Armed and not yet run (or cancelled). */
  get armed(): boolean {
    return this.index !== IDLE;
  }
}

const heap: Step[] = [];
/** The steps of the current pass (reused: no array per pass). */
const firing: Step[] = [];
let timer: NodeJS.Timeout | undefined;
let timerDue = Number.POSITIVE_INFINITY;
let ticking = false;

/** Arms `step` to run `fn` `ms` milliseconds from now (again, if it was armed: the earlier arming is dropped). */
export function armStep(step: Step, ms: number, fn: () => void): void {
  if (step.index >= 0) removeAt(step.index);
  step.due = performance.now() + ms;
  step.fn = fn;
  push(step);
  if (!ticking && step.due < timerDue) schedule(step.due);
}

/** Disarms `step`: its callback will not run. */
export function cancelStep(step: Step): void {
  if (step.index >= 0) removeAt(step.index);
  step.index = IDLE;
  step.fn = undefined;
  if (heap.length === 0 && timer !== undefined && !ticking) {
    // Nothing left to wait for: the process is not kept alive by an empty heap.
    clearTimeout(timer);
    timer = undefined;
    timerDue = Number.POSITIVE_INFINITY;
  }
}

/** Steps armed now (for tests and metrics). */
export function armedSteps(): number {
  return heap.length;
}

function schedule(due: number): void {
  clearTimeout(timer);
  timerDue = due;
  timer = setTimeout(tick, msLeft(due));
}

function tick(): void {
  timer = undefined;
  timerDue = Number.POSITIVE_INFINITY;
  ticking = true;
  try {
    const now = performance.now();
    while (heap.length > 0 && (heap[0] as Step).due <= now) {
      const step = pop();
      step.index = FIRING;
      firing.push(step);
    }
    for (let i = 0; i < firing.length; i++) {
      const step = firing[i] as Step;
      // Cancelled or re-armed by an earlier callback of this pass.
      if (step.index !== FIRING) continue;
      step.index = IDLE;
      const fn = step.fn as () => void;
      step.fn = undefined;
      unbatched(fn);
    }
  } finally {
    // A callback that threw leaves the pass's later steps unrun: back on the heap, due at once.
    for (const step of firing) if (step.index === FIRING) push(step);
    firing.length = 0;
    ticking = false;
    if (heap.length > 0) schedule((heap[0] as Step).due);
  }
}

// A binary min-heap on `due`; each step knows its index, so a cancel is O(log n).

function push(step: Step): void {
  heap.push(step);
  siftUp(heap.length - 1, step);
}

function pop(): Step {
  const top = heap[0] as Step;
  const last = heap.pop() as Step;
  if (heap.length > 0) siftDown(0, last);
  return top;
}

function removeAt(index: number): void {
  const last = heap.pop() as Step;
  if (index === heap.length) return;
  const parent = index > 0 ? (heap[(index - 1) >> 1] as Step) : undefined;
  if (parent !== undefined && last.due < parent.due) siftUp(index, last);
  else siftDown(index, last);
}

function siftUp(index: number, step: Step): void {
  while (index > 0) {
    const parentIndex = (index - 1) >> 1;
    const parent = heap[parentIndex] as Step;
    if (parent.due <= step.due) break;
    heap[index] = parent;
    parent.index = index;
    index = parentIndex;
  }
  heap[index] = step;
  step.index = index;
}

function siftDown(index: number, step: Step): void {
  const half = heap.length >> 1;
  while (index < half) {
    let childIndex = 2 * index + 1;
    let child = heap[childIndex] as Step;
    const right = heap[childIndex + 1];
    if (right !== undefined && right.due < child.due) {
      childIndex++;
      child = right;
    }
    if (step.due <= child.due) break;
    heap[index] = child;
    child.index = index;
    index = childIndex;
  }
  heap[index] = step;
  step.index = index;
}
