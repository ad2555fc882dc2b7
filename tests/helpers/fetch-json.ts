// A fetch of a well-formed (control) answer and its JSON body, {} when empty;
// redirects are not followed, so a 3xx is seen as it is.
export async function fetchJson(url: string, init?: RequestInit): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const text = await res.text();
  return { res, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
