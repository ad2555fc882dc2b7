// What the OpenAI and Anthropic SDK scenarios share: a fetch that counts the
// requests the SDK sent (retries included), and an error named as the SDK
// names it (its class, and the HTTP status when there was one).

/** A fetch for an SDK's `fetch` option, and how many requests went through it. */
export function countingFetch(): { readonly fetch: (url: string | URL | Request, init?: RequestInit) => Promise<Response>; readonly sent: () => number } {
  let sent = 0;
  return {
    fetch: (url, init) => {
      sent++;
      return fetch(url, init);
    },
    sent: () => sent,
  };
}

/** An SDK error as its class and status: `RateLimitError 429`. */
export function failure(error: unknown): string {
  const e = error as { status?: unknown; constructor: { name: string } };
  return `${e.constructor.name}${typeof e.status === 'number' ? ` ${e.status}` : ''}`;
}
