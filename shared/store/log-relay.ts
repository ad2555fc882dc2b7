// Log appends carried between the hosts of the embedded default without
// Redis (docs/exam.md, "The embedded default"). There each host keeps its own
// memory; a client exam's log lives where the hub opened it (the control
// process), while the chaos host records most of its steps. A LogRelay sends
// one side's appends to the other, which appends them to its own store as if
// recorded there: over IPC through the supervisor (`make up STACK=embedded`,
// three processes), or by a direct call (the in-process embedding). Only
// appends travel: the sending side reads no log, and nothing else is shared.
import type { Store } from './types.js';

/** One append on its way to the store that holds the log. */
export interface LogAppend {
  readonly type: 'log-append';
  readonly key: string;
  readonly entry: string;
  readonly maxEntries: number;
}

/** The supervisor's word to a process: from now on, send log appends up instead of keeping them. */
export const RELAY_LOG_APPENDS = { type: 'relay-log-appends' } as const;

export function isLogAppend(message: unknown): message is LogAppend {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  return m.type === 'log-append' && typeof m.key === 'string' && typeof m.entry === 'string' && typeof m.maxEntries === 'number';
}

export function isRelayRequest(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as Record<string, unknown>).type === RELAY_LOG_APPENDS.type;
}

export class LogRelay {
  #send: ((append: LogAppend) => void) | undefined;
  /** The store's own appendLog, bound to it. */
  #append: Store['appendLog'] | undefined;

  /**
   * `store` as the service is given it: every operation goes to the store,
   * but appendLog goes to `send` once relayTo has named one. The store itself
   * with an appendLog of its own in front of its class's: every other
   * operation runs with no indirection (a Proxy's trap, tried before, cost
   * every store call, and the pipeline makes one on every request).
   */
  wrap(store: Store): Store {
    const append = (this.#append = store.appendLog.bind(store));
    const relayed = (key: string, entry: string, maxEntries: number): Promise<boolean> => {
      const send = this.#send;
      if (send === undefined) return append(key, entry, maxEntries);
      send({ type: 'log-append', key, entry, maxEntries });
      return Promise.resolve(true);
    };
    Object.defineProperty(store, 'appendLog', { value: relayed, configurable: true, writable: true, enumerable: false });
    return store;
  }

  /** From now on this side's appends go to `send`. */
  relayTo(send: (append: LogAppend) => void): void {
    this.#send = send;
  }

  /** An append relayed from the other side: into this side's own store (a log it does not hold is ignored, as any late append). */
  receive(append: LogAppend): void {
    this.#append?.(append.key, append.entry, append.maxEntries).catch(() => undefined);
  }
}
