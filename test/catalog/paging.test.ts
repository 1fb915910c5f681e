import { describe, expect, it } from "vitest";
import { tableFilesAt } from "../../catalog/index.ts";
import { cols, file, fresh, settle } from "./support.ts";

describe("scan plans by page", () => {
  it("pages concatenate to the whole plan at every snapshot, across expired files", async () => {
    const { store, catalog } = await fresh("paging");
    const t = { name: "t" };
    let r = await catalog.commit({ verbs: [{ op: "create_table", name: "t", columns: cols }] });
    await settle(store, r.durable);
    for (let i = 0; i < 7; i++) {
      r = await catalog.commit({
        verbs: [{ op: "register_data_file", table: t, file: file(`f${i}.parquet`, 5) }],
      });
      await settle(store, r.durable);
    }
    // Expire two files so history records sit among the current ones.
    for (const id of [1, 4]) {
      r = await catalog.commit({ verbs: [{ op: "expire_data_file", table: t, dataFileId: id }] });
      await settle(store, r.durable);
    }
    const view = store.snapshot();
    const head = r.snapshotId as number;
    for (let s = 1; s <= head; s++) {
      const whole = (await tableFilesAt(view, t, s)).files.map((f) => f.data_file_id);
      for (const limit of [1, 2, 3, 100]) {
        const ids: number[] = [];
        let after: number | undefined;
        let pages = 0;
        for (;;) {
          const page = await tableFilesAt(view, t, s, {
            limit,
            ...(after !== undefined ? { afterFileId: after } : {}),
          });
          expect(page.files.length).toBeLessThanOrEqual(limit);
          if (after !== undefined) expect(page.inlined_rows).toEqual([]);
          ids.push(...page.files.map((f) => f.data_file_id));
          pages++;
          if (page.next_after_file_id === null) break;
          after = page.next_after_file_id;
          expect(pages).toBeLessThan(20);
        }
        expect(ids, `snapshot ${s}, limit ${limit}`).toEqual(whole);
      }
    }
  });
});
