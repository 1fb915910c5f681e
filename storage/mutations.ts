/** Argument checks for keys, values and batches: done before anything is applied, so batches stay all-or-none. */
import type { Bytes, Mutation } from "./api.ts";
import { InvalidArgument } from "./errors.ts";

export function checkKey(key: unknown): Bytes {
  if (!(key instanceof Uint8Array)) throw new InvalidArgument("a key must be a Uint8Array");
  return key;
}

export function checkValue(value: unknown): Bytes {
  if (!(value instanceof Uint8Array))
    throw new InvalidArgument("a value must be a Uint8Array (use delete to remove)");
  return value;
}

/** Validates every mutation, then copies them so later changes to the caller's buffers cannot leak in. */
export function copyBatch(mutations: readonly Mutation[]): Mutation[] {
  if (!Array.isArray(mutations)) throw new InvalidArgument("a batch must be an array of mutations");
  for (const m of mutations) {
    checkKey(m?.key);
    if (m.value !== undefined) checkValue(m.value);
  }
  return mutations.map((m) => ({ key: m.key.slice(), value: m.value?.slice() }));
}
