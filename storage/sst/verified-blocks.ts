/**
 * The one gate every data block passes before a reader decodes it: its CRC32C trailer, run once per
 * byte array (docs/decisions/0185-verified-blocks.md).
 *
 * Bytes that pass are remembered by identity (a WeakSet of the very Uint8Array objects, so nothing is
 * kept alive for it). The in-memory LRU hands back the same object it was given, so a hit on a block this
 * isolate already checked skips the CRC; everything else — a GET's body from R2, a prefetch run, a fence
 * window, a copy from any other ObjectCache (the Workers cache returns new bytes) — is a new object and
 * is checked. Nothing can mark bytes as checked except passing the check here. What it relies on is the
 * ObjectCache contract that nobody mutates cached bytes.
 */
import { verifyBlock } from "./block.ts";
import type { ReadCounters } from "./counters.ts";

const checked = new WeakSet<Uint8Array>();

/** Whether `block` passes its checksum: computed only for bytes not already checked in this isolate. */
export function checkedBlock(block: Uint8Array, counters: ReadCounters): boolean {
  if (checked.has(block)) {
    counters.blockChecksumsSkipped++;
    return true;
  }
  counters.blockChecksums++;
  if (!verifyBlock(block)) return false;
  checked.add(block);
  return true;
}
