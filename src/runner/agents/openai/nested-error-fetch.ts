/**
 * SGLang and vLLM releases before mid-2025 answer errors as a flat `{object: 'error', message, type, code}`, and
 * FastAPI validation errors as `{detail}`. The openai package reads only `{error: {message}}`, so with those servers
 * every error would read "400 status code (no body)", hiding e.g. the context-length message we classify on.
 * This fetch rewraps such error bodies in the shape the package understands; successful responses pass untouched.
 */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function nestedErrorFetch(baseFetch: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const response = await baseFetch(input, init);
    if (response.ok) return response;
    const text = await response.text();
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(nestErrorBody(text), { status: response.status, statusText: response.statusText, headers });
  };
}

function nestErrorBody(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || 'error' in body) return text;
  const flat = body as { message?: unknown; detail?: unknown };
  const message = typeof flat.message === 'string' ? flat.message : flat.detail === undefined ? undefined : typeof flat.detail === 'string' ? flat.detail : JSON.stringify(flat.detail);
  return message === undefined ? text : JSON.stringify({ error: { ...body, message } });
}
