/**
 * A writer that a newer writer superseded (and that does not know it yet) runs a memtable flush, a
 * compaction or GC: it publishes nothing and deletes nothing, the new writer's state and every object it
 * needs are untouched, and what the old writer left behind (tables no manifest names) is collected by the
 * new writer's GC after the grace period.
 */
import { describe, expect, it } from "vitest";
import { Fenced } from "../../../storage/errors.ts";
import { parseSstKey } from "../../../storage/sst/key.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, dump, faultBucket, lakeName, objectKeys, realBucket } from "../helpers.ts";
import { Clock, expectNeededObjectsPresent, GRACE, openLake } from "./support.ts";

async function populate(st: LakeStore): Promise<void> {
  for (let round = 0; round < 4; round++) {
    const muts = [];
    for (let i = 0; i < 25; i++) {
      const k = `k${String((i * 7 + round * 3) % 60).padStart(2, "0")}`;
      muts.push({ key: b(k), value: i % 9 === 0 ? undefined : b(`v${round}-${i}`) });
    }
    st.write(muts);
    await st.flushMemtable();
  }
  await st.compact({ force: true, budgetBytes: 1 << 20 });
  for (let round = 4; round < 7; round++) {
    st.write([{ key: b(`k${round}`), value: b(`late${round}`) }]);
    await st.flushMemtable();
  }
  st.write([{ key: b("tail"), value: b("in the WAL only") }]);
  await st.flush();
}

describe("superseded writer", () => {
  for (const op of ["memtable flush", "compaction", "gc"] as const) {
    it(`runs ${op} after a new writer took over: nothing of the new writer changes`, async () => {
      const clock = new Clock();
      const lake = lakeName(`super-${op.replace(" ", "-")}`);
      const old = await openLake(faultBucket(), lake, clock);
      await populate(old);
      // The old writer has already swept once (nothing was due yet), so its next GC goes straight to deleting.
      if (op === "gc") expect((await old.collectGarbage()).deleted).toBe(0);
      // Everything recorded so far is past its grace: a live writer's GC would delete it now.
      clock.advance(GRACE + 1);

      const next = await openLake(faultBucket(), lake, clock);
      const state = await dump(next.snapshot());
      expect(state.tail).toBe("in the WAL only");
      const before = await objectKeys(realBucket(), lake);

      if (op === "gc") {
        const r = await old.collectGarbage();
        expect(r.superseded).toBe(true);
        expect(r.deleted).toBe(0);
      } else if (op === "memtable flush") {
        await expect(old.flushMemtable()).rejects.toBeInstanceOf(Fenced);
      } else {
        await expect(old.compact({ force: true, budgetBytes: 1 << 20 })).rejects.toBeInstanceOf(Fenced);
      }

      const after = new Set(await objectKeys(realBucket(), lake));
      for (const k of before) expect(after.has(k), k).toBe(true);
      expect(await dump(next.snapshot())).toEqual(state);
      await expectNeededObjectsPresent(realBucket(), lake);

      // The new writer carries on; the old one's leftovers are recorded, then collected after the grace.
      next.write([{ key: b("after"), value: b("1") }]);
      await next.flushMemtable();
      // Forced steps until none is left: every run merged into one (the old writer's tables replaced).
      while ((await next.compact({ force: true })) !== undefined);
      for (let i = 0; i < 2; i++) {
        await next.collectGarbage();
        clock.advance(GRACE + 1);
      }
      await next.collectGarbage();
      const oldTables = (await objectKeys(realBucket(), lake)).filter(
        (k) => parseSstKey(`lakes/${lake}/${k}`)?.epoch === old.epoch,
      );
      expect(oldTables).toEqual([]);
      expect(await dump(next.snapshot())).toEqual({ ...state, after: "1" });
      await next.close();
      await old.close().catch(() => {});
      const check = await openLake(faultBucket(), lake, clock);
      expect(await dump(check.snapshot())).toEqual({ ...state, after: "1" });
      await check.close();
    });
  }
});
