// Every timer of one chaos connection (connection.ts), behind one helper: the
// request-head read, the idle wait, a hold, a stalled reader, the linger after
// our FIN. The first three fire a method of their owner, the last two end the
// socket; clearAll() leaves none running but the linger.
//
// They are deadlines on deadline-lists.ts (one list and one node timer per
// length, for all connections), not node timers: a node Timeout per
// connection (its first-request wait, then its linger) was setTimeout, the
// timer list's insert and unenroll and one more object for the scavenger
// (bench/JOURNAL.md, issue 31: per-connection cost). A deadline object is made
// when its timer is first armed and re-armed after; it carries its
// ConnectionTimers, so arming makes no closure.
import type { Socket } from 'node:net';
import { armDeadline, cancelDeadline, Deadline } from './deadline-lists.js';
import { destroyFlushed } from './turn-writes.js';

/** What a connection does when one of its timers fires. */
export interface TimerOwner {
  /** The request head (or the PROXY header) did not arrive in time. */
  onRequestTimeout(): void;
  /** Nothing came while idle. */
  onIdleTimeout(): void;
  /** A held response's time is over. */
  onHoldTimeout(): void;
}

/** A deadline that knows its connection's timers (the callbacks are shared functions). */
class ConnectionDeadline extends Deadline {
  constructor(readonly timers: ConnectionTimers) {
    super();
  }
}

export class ConnectionTimers {
  #request: ConnectionDeadline | undefined;
  /**
   * The idle wait, re-armed for each wait. Input disarms it without taking it
   * off its list (input comes on every read); a disarmed wait that fires does nothing.
   */
  #idle: ConnectionDeadline | undefined;
  #idleArmed = false;
  #hold: ConnectionDeadline | undefined;
  #stall: ConnectionDeadline | undefined;
  #linger: ConnectionDeadline | undefined;

  constructor(
    private readonly owner: TimerOwner,
    private readonly socket: Socket,
  ) {}

  /** Arms the request-head timer unless it runs already (it is not restarted by more input). */
  armRequest(ms: number): void {
    const deadline = (this.#request ??= new ConnectionDeadline(this));
    if (!deadline.armed) armDeadline(deadline, ms, fireRequest);
  }

  clearRequest(): void {
    if (this.#request) cancelDeadline(this.#request);
  }

  /** Whether the idle wait is armed (input disarms it). */
  get idleArmed(): boolean {
    return this.#idleArmed;
  }

  armIdle(ms: number): void {
    this.#idleArmed = true;
    armDeadline((this.#idle ??= new ConnectionDeadline(this)), ms, fireIdle);
  }

  /** Input arrived: an idle timer that fires now does nothing. */
  disarmIdle(): void {
    this.#idleArmed = false;
  }

  /** A client that reads nothing for this long while responses wait for it is cut off (what this turn holds goes first). */
  armStall(ms: number): void {
    armDeadline((this.#stall ??= new ConnectionDeadline(this)), ms, fireStall);
  }

  clearStall(): void {
    if (this.#stall) cancelDeadline(this.#stall);
  }

  armHold(ms: number): void {
    armDeadline((this.#hold ??= new ConnectionDeadline(this)), ms, fireHold);
  }

  /** After our FIN, a client that never closes its side is cut off; it does not keep the process alive (deadline-lists.ts). */
  armLinger(ms: number): void {
    armDeadline((this.#linger ??= new ConnectionDeadline(this)), ms, fireLinger);
  }

  /** Every timer but the linger. */
  clearAll(): void {
    if (this.#request) cancelDeadline(this.#request);
    if (this.#idle) cancelDeadline(this.#idle);
    if (this.#hold) cancelDeadline(this.#hold);
    if (this.#stall) cancelDeadline(this.#stall);
    this.#idleArmed = false;
  }

  clearLinger(): void {
    if (this.#linger) cancelDeadline(this.#linger);
  }

  // The deadlines' callbacks: static, so that arming one passes the deadline instead of making a closure.
  static fireRequest(deadline: ConnectionDeadline): void {
    deadline.timers.owner.onRequestTimeout();
  }

  static fireIdle(deadline: ConnectionDeadline): void {
    if (deadline.timers.#idleArmed) deadline.timers.owner.onIdleTimeout();
  }

  static fireStall(deadline: ConnectionDeadline): void {
    destroyFlushed(deadline.timers.socket);
  }

  static fireHold(deadline: ConnectionDeadline): void {
    deadline.timers.owner.onHoldTimeout();
  }

  static fireLinger(deadline: ConnectionDeadline): void {
    deadline.timers.socket.destroy();
  }
}

const { fireRequest, fireIdle, fireStall, fireHold, fireLinger } = ConnectionTimers;
