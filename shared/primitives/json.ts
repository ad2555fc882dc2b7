/** Serialises a body as JSON with a trailing newline, as every JSON response here ends. */
export function jsonBody(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`);
}
