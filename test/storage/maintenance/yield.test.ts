/**
 * Maintenance returns to the event loop while it works on in-memory data (docs/decisions/0166-maintenance-yields.md):
 * a commit's callbacks are macrotasks, so a table build that never yields holds every commit for its
 * whole length. Ordered by events, not time: a timer queued before the build must run before it ends.
 */
import { describe, expect, it } from "vitest";
import { YIELD_EVERY_BYTES } from "../../../storage/maintenance.ts";
import { newMemTree } from "../../../storage/memtable.ts";
import { buildL0Table } from "../../../storage/memtable-flush.ts";
import { b } from "../helpers.ts";

describe("memtable flush build", () => {
  it("lets a queued macrotask run while it builds a table larger than YIELD_EVERY_BYTES", async () => {
    const tree = newMemTree();
    const value = b("v".repeat(1000));
    const n = Math.ceil((4 * YIELD_EVERY_BYTES) / 1000);
    for (let i = 0; i < n; i++) tree.set(b(`k/${String(i).padStart(8, "0")}`), i % 10 === 0 ? null : value);
    const order: string[] = [];
    // A probe, not a wait: a zero-delay macrotask queued before the build runs only if the build hands the
    // event loop back part-way (a build that never yields would finish first).
    setTimeout(() => order.push("timer"), 0);
    const built = await buildL0Table({ tree }).then((t) => {
      order.push("built");
      return t;
    });
    expect(order).toEqual(["timer", "built"]);
    expect(built.summary.entries).toBe(n);
    expect(built.summary.tombstones).toBe(Math.ceil(n / 10));
  });
});
