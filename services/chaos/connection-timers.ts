// Every timer of one chaos connection (connection.ts), behind one helper: the
// request-head read, the idle wait, a hold, a stalled reader, the linger after
// our FIN. The first three fire a method of their owner, the last two end the
// socket; none keeps a closure per arm, and clearAll() leaves none running but
// the linger.
import type { Socket } from 'node:net';
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

export class ConnectionTimers {
  #request: NodeJS.Timeout | undefined;
  /**
   * The idle wait, one timer per connection re-armed with refresh() (a new
   * timer per request was a measurable share of the hot path). Input disarms
   * it; a disarmed timer that fires does nothing.
   */
  #idle: NodeJS.Timeout | undefined;
  #idleMs = 0;
  #idleArmed = false;
  #hold: NodeJS.Timeout | undefined;
  #stall: NodeJS.Timeout | undefined;
  #linger: NodeJS.Timeout | undefined;

  constructor(
    private readonly owner: TimerOwner,
    private readonly socket: Socket,
  ) {}

  /** Arms the request-head timer unless it runs already (it is not restarted by more input). */
  armRequest(ms: number): void {
    this.#request ??= setTimeout(fireRequest, ms, this);
  }

  clearRequest(): void {
    clearTimeout(this.#request);
    this.#request = undefined;
  }

  /** Whether the idle wait is armed (input disarms it). */
  get idleArmed(): boolean {
    return this.#idleArmed;
  }

  armIdle(ms: number): void {
    this.#idleArmed = true;
    if (this.#idle && this.#idleMs === ms) {
      this.#idle.refresh();
      return;
    }
    clearTimeout(this.#idle);
    this.#idleMs = ms;
    this.#idle = setTimeout(fireIdle, ms, this);
  }

  /** Input arrived: an idle timer that fires now does nothing. */
  disarmIdle(): void {
    this.#idleArmed = false;
  }

  /** A client that reads nothing for this long while responses wait for it is cut off (what this turn holds goes first). */
  armStall(ms: number): void {
    this.#stall = setTimeout(fireStall, ms, this);
  }

  clearStall(): void {
    clearTimeout(this.#stall);
    this.#stall = undefined;
  }

  armHold(ms: number): void {
    this.#hold = setTimeout(fireHold, ms, this);
  }

  /** After our FIN, a client that never closes its side is cut off; it does not keep the process alive. */
  armLinger(ms: number): void {
    this.#linger = setTimeout(fireLinger, ms, this);
    this.#linger.unref();
  }

  /** Every timer but the linger. */
  clearAll(): void {
    clearTimeout(this.#request);
    clearTimeout(this.#idle);
    clearTimeout(this.#hold);
    clearTimeout(this.#stall);
    this.#request = this.#idle = this.#hold = this.#stall = undefined;
    this.#idleArmed = false;
  }

  clearLinger(): void {
    clearTimeout(this.#linger);
    this.#linger = undefined;
  }

  // The timers' callbacks: static, so that arming one passes `this` instead of making a closure.
  static fireRequest(timers: ConnectionTimers): void {
    timers.#request = undefined;
    timers.owner.onRequestTimeout();
  }

  static fireIdle(timers: ConnectionTimers): void {
    if (timers.#idleArmed) timers.owner.onIdleTimeout();
  }

  static fireStall(timers: ConnectionTimers): void {
    destroyFlushed(timers.socket);
  }

  static fireHold(timers: ConnectionTimers): void {
    timers.owner.onHoldTimeout();
  }

  static fireLinger(timers: ConnectionTimers): void {
    timers.socket.destroy();
  }
}

const { fireRequest, fireIdle, fireStall, fireHold, fireLinger } = ConnectionTimers;
