// Bodies for real failures at the edge (not chaos): stable codes, no X-Chaos-*.

export interface EdgeErrorBody {
  readonly error: string;
  readonly reason: string;
}

/** Serialises a body as JSON with a trailing newline, as every JSON response here ends. */
export function jsonBody(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`);
}
