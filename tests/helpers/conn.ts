// An interactive raw connection for tests that talk back and forth on one
// socket (100-continue, keep-alive, slowloris): everything received is kept,
// and how the connection ended (FIN or reset) is recorded.
import net from 'node:net';
import { endKindAtEof } from './raw.js';

export type Ending = 'fin' | 'reset';

export class RawConn {
  #chunks: Buffer[] = [];
  #received: Buffer = Buffer.alloc(0);
  #ended: Ending | undefined;
  #waiters = new Set<() => void>();

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.#chunks.push(chunk);
      this.#received = Buffer.concat(this.#chunks);
      this.#wake();
    });
    socket.on('end', () => endKindAtEof(socket, (end) => this.#finish(end)));
    socket.on('error', () => this.#finish('reset'));
    socket.on('close', (hadError) => this.#finish(hadError ? 'reset' : 'fin'));
  }

  static open(port: number, host = '127.0.0.1'): Promise<RawConn> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host, allowHalfOpen: true });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConn(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Everything received so far. */
  get received(): Buffer {
    return this.#received;
  }

  get text(): string {
    return this.#received.toString('latin1');
  }

  /** How the server ended the connection, once it has. */
  get ended(): Ending | undefined {
    return this.#ended;
  }

  write(data: string | Buffer): void {
    this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  }

  /** Resolves true once `test(received)` holds, false on timeout or when the connection ends first. */
  waitFor(test: (data: Buffer) => boolean, timeoutMs = 3000): Promise<boolean> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (test(this.#received)) done(true);
        else if (this.#ended) done(false);
      };
      const done = (value: boolean): void => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => done(test(this.#received)), timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  /** Resolves with how the connection ended, or 'open' if it is still open after `timeoutMs`. */
  async waitEnd(timeoutMs = 3000): Promise<Ending | 'open'> {
    await this.waitFor(() => this.#ended !== undefined, timeoutMs);
    return this.#ended ?? 'open';
  }

  /** Our FIN: we send nothing more but still read. */
  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  #finish(how: Ending): void {
    this.#ended ??= how;
    this.#wake();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** Counts complete responses framed by Content-Length at the start of `data` (HEAD responses when `headOnly`). */
export function completeResponses(data: Buffer, headOnly: readonly boolean[] = []): number {
  let count = 0;
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const head = data.toString('latin1', at, end);
    if (/^HTTP\/1\.1 1\d\d /.test(head)) {
      at = end + 4; // interim responses have no body and do not count
      continue;
    }
    const m = /\r\ncontent-length: *(\d+)/i.exec(head);
    const length = headOnly[count] ? 0 : m ? Number(m[1]) : 0;
    if (data.length < end + 4 + length) break;
    at = end + 4 + length;
    count++;
  }
  return count;
}
