/**
 * Counts the store entries reads step over — tombstones included, which a scan's visible results hide —
 * in all and under a key prefix. Every read of a cut or a transaction merges its layers through
 * `Cut.entries` (storage/read-view.ts); this wraps that method while counting, delegating every call and
 * changing nothing it yields: a counter over the real store, never a fake. Free of Cloudflare imports, so
 * the Node benchmarks use it too (`npm run bench -- sustained entries=1`).
 */
import type { Bytes, ScanRange, SortedEntry } from "../../storage/api.ts";
import { Cut } from "../../storage/read-view.ts";

function startsWith(k: Bytes, prefix: Bytes): boolean {
  if (k.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (k[i] !== prefix[i]) return false;
  return true;
}

export interface EntryCount {
  /** Entries stepped over in all / under the prefix, since the count started. */
  readonly all: number;
  readonly under: number;
  /** Restores `Cut.entries`; the totals stay readable. */
  stop(): void;
}

/** Starts counting; one count at a time (a second would wrap the first's wrapper). */
export function startEntryCount(prefix: Bytes): EntryCount {
  const original = Cut.prototype.entries;
  const count = {
    all: 0,
    under: 0,
    stop: () => {
      Cut.prototype.entries = original;
    },
  };
  Cut.prototype.entries = function (this: Cut, range: ScanRange): AsyncIterable<SortedEntry> {
    const inner = original.call(this, range);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const e of inner) {
          count.all++;
          if (startsWith(e.key, prefix)) count.under++;
          yield e;
        }
      },
    };
  };
  return count;
}

/** The entries under `prefix` that reads step over while `work` runs. */
export async function countEntries<T>(
  prefix: Bytes,
  work: () => Promise<T>,
): Promise<{ value: T; entries: number }> {
  const count = startEntryCount(prefix);
  try {
    const value = await work();
    return { value, entries: count.under };
  } finally {
    count.stop();
  }
}
