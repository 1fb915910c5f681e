/**
 * Results cross RPC as envelopes rather than thrown exceptions: a typed envelope needs no message
 * parsing, and a rejected RPC leaks an unhandled rejection in the test runtime.
 */
import { CodedError } from "../storage/errors.ts";

export interface ErrorBody {
  code: string;
  message: string;
}

export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

export function ok<T>(value: T): Envelope<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: string, message: string): Envelope<T> {
  return { ok: false, error: { code, message } };
}

/** Runs `fn`, turning a typed error into a failed envelope; anything untyped is `Internal`. */
export async function enveloped<T>(fn: () => Promise<T>): Promise<Envelope<T>> {
  try {
    return ok(await fn());
  } catch (err) {
    if (err instanceof CodedError) return fail(err.code, err.message);
    console.error(
      JSON.stringify({ level: "error", msg: "untyped error in lake writer", error: String(err) }),
    );
    return fail("Internal", "the lake writer hit an unexpected error; it has been logged");
  }
}
