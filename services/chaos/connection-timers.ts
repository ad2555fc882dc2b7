// Every timer of one chaos connection (connection.ts), behind one helper: the
// request-head read, the idle wait, a hold, a stalled reader, the linger after
// our FIN. Each fires a method of its owner; none keeps a closure per arm, and
// clearAll() leaves none running but the linger.

/** What a connection does when one of its timers fires. */
export interface TimerOwner {
  /** The request head (or the PROXY header) did not arrive in time. */
  onRequestTimeout(): void;
  /** Nothing came while idle. */
  onIdleTimeout(): void;
  /** A held response's time is over. */
  onHoldTimeout(): void;
  /** The client read nothing while responses waited for it. */
  onStallTimeout(): void;
  /** The client never closed its side after our FIN. */
  onLingerTimeout(): void;
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

  constructor(private readonly owner: TimerOwner) {}

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

  /** After our FIN; it does not keep the process alive. */
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
    timers.owner.onStallTimeout();
  }

  static fireHold(timers: ConnectionTimers): void {
    timers.owner.onHoldTimeout();
  }

  static fireLinger(timers: ConnectionTimers): void {
    timers.owner.onLingerTimeout();
  }
}

const { fireRequest, fireIdle, fireStall, fireHold, fireLinger } = ConnectionTimers;
