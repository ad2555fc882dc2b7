// Deadlines of a few fixed lengths, kept by many connections at once (the
// first-request wait, the idle wait, the request-head read, the linger after
// our FIN): one list per length, under one node timer each, instead of a node
// Timeout per deadline. Deadlines of one length are due in the order they are
// armed, so arming appends and cancelling unlinks, both O(1), and only a
// list's first deadline needs a timer. This is node's own timer-list design
// without a Timeout object, async context and libuv clock read per arm: a
// Timeout per connection was about a sixth of what chaos's transport spent on
// a connection beyond a bare node:net server (bench/JOURNAL.md, issue 31:
// per-connection cost).
//
// A deadline never fires before its time (node's timers may, by up to 1 ms: a
// list's timer that fires early is armed again for what is left). Its
// callback runs from the timers phase, as a node timer's would. A list's timer
// is unref'd and is not cleared when the list empties (it fires once and finds
// nothing): a deadline belongs to a socket, which keeps the process alive by
// itself, and a connection that arms and cancels within a few milliseconds
// should not clear and set a node timer each time.
import { msLeft } from '../../shared/primitives/timers.js';

/** One reusable deadline: armed with a length and a callback, fired or cancelled, armed again by its owner. */
export class Deadline {
  due = 0;
  list: DeadlineList | undefined = undefined;
  prev: Deadline | undefined = undefined;
  next: Deadline | undefined = undefined;
  /** Called with the deadline itself: an owner kept on the deadline (a subclass) needs no closure per arm. */
  fn: ((deadline: Deadline) => void) | undefined = undefined;

  /** Armed and neither fired nor cancelled. */
  get armed(): boolean {
    return this.list !== undefined;
  }
}

class DeadlineList {
  head: Deadline | undefined = undefined;
  tail: Deadline | undefined = undefined;
  /** Set while the list has deadlines (and for a while after: see the top of the file); never for a later one than the head. */
  timer: NodeJS.Timeout | undefined = undefined;
  /** Its due deadlines are being called: what they arm waits for the end of the pass. */
  firing = false;

  constructor(readonly ms: number) {}
}

const lists = new Map<number, DeadlineList>();

/** Arms `deadline` to call `fn(deadline)` `ms` milliseconds from now (again, if it was armed: the earlier arming is dropped). */
export function armDeadline<D extends Deadline>(deadline: D, ms: number, fn: (deadline: D) => void): void {
  if (deadline.list !== undefined) unlink(deadline);
  let list = lists.get(ms);
  if (list === undefined) {
    list = new DeadlineList(ms);
    lists.set(ms, list);
  }
  deadline.due = performance.now() + ms;
  // Only ever called with the deadline it was armed on.
  deadline.fn = fn as (deadline: Deadline) => void;
  deadline.list = list;
  deadline.prev = list.tail;
  if (list.tail) list.tail.next = deadline;
  else list.head = deadline;
  list.tail = deadline;
  // A timer set for an earlier (since cancelled) deadline fires, finds this one not due, and is set again for it.
  if (list.timer === undefined && !list.firing) schedule(list, deadline.due);
}

/** Disarms `deadline`: its callback will not run. */
export function cancelDeadline(deadline: Deadline): void {
  if (deadline.list !== undefined) unlink(deadline);
  deadline.fn = undefined;
}

function unlink(deadline: Deadline): void {
  const list = deadline.list as DeadlineList;
  if (deadline.prev) deadline.prev.next = deadline.next;
  else list.head = deadline.next;
  if (deadline.next) deadline.next.prev = deadline.prev;
  else list.tail = deadline.prev;
  deadline.list = deadline.prev = deadline.next = undefined;
}

function schedule(list: DeadlineList, due: number): void {
  list.timer = setTimeout(fire, msLeft(due), list);
  list.timer.unref();
}

function fire(list: DeadlineList): void {
  list.timer = undefined;
  list.firing = true;
  try {
    const now = performance.now();
    // Deadlines armed by a callback here are due `ms` from now: never in this pass.
    for (let deadline = list.head; deadline !== undefined && deadline.due <= now; deadline = list.head) {
      const fn = deadline.fn as (deadline: Deadline) => void;
      unlink(deadline);
      deadline.fn = undefined;
      fn(deadline);
    }
  } finally {
    // The next deadline's timer (a callback that threw leaves the later ones armed, and they get it too).
    list.firing = false;
    if (list.head !== undefined) schedule(list, list.head.due);
  }
}

/** Deadlines armed now, over every list (for tests). */
export function armedDeadlines(): number {
  let count = 0;
  for (const list of lists.values()) for (let d = list.head; d !== undefined; d = d.next) count++;
  return count;
}
