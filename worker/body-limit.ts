/**
 * Reading a request body under a limit while it streams: a declared length above the limit is refused
 * before a byte is read, and a chunked body is cut (its stream cancelled) at the first chunk that passes
 * the limit, so no route buffers more than its limit (docs/decisions/0400-quack-door-limits.md). The one
 * home of that rule: the `/v1/*` JSON middleware and `POST /quack` both read through it.
 */

/** The body's bytes, or null when it exceeds `limit` (the rest of the stream is then cancelled, unread). */
export async function readBodyWithin(request: Request, limit: number): Promise<Uint8Array | null> {
  const body = request.body;
  if (!body) return new Uint8Array(0);
  const declared = request.headers.get("content-length");
  if (declared !== null && !request.headers.has("transfer-encoding")) {
    const n = Number(declared);
    if (!Number.isSafeInteger(n) || n > limit) {
      await body.cancel().catch(() => {});
      return null;
    }
  }
  const reader = body.getReader();
  let buffer = new Uint8Array(0);
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    if (size + value.length > buffer.length) {
      // Doubling, never past the limit: what is allocated is bounded by the limit too.
      const grown = new Uint8Array(Math.min(limit, Math.max(size + value.length, buffer.length * 2)));
      grown.set(buffer.subarray(0, size));
      buffer = grown;
    }
    buffer.set(value, size);
    size += value.length;
  }
  return buffer.subarray(0, size);
}
