import { describe, expect, it } from "vitest";
import type { ScanRange } from "../../storage/api.ts";
import { StoreClosed, TransactionClosed, TransactionConflict } from "../../storage/errors.ts";
import { b, dump, faultBucket, lakeName, open, s } from "./helpers.ts";

describe("store basics", () => {
  it("genesis, write, read, flush, reopen", async () => {
    const fb = faultBucket();
    const lake = lakeName("basic");
    const st = await open(fb, lake);
    expect(st.position).toBe(0);
    const h1 = st.write([
      { key: b("a"), value: b("1") },
      { key: b("b"), value: b("2") },
    ]);
    const h2 = st.write([{ key: b("a"), value: undefined }]);
    expect(h1.position).toBe(1);
    expect(h2.position).toBe(2);
    expect(s(await st.snapshot().get(b("a")))).toBeUndefined();
    expect(await dump(st.snapshot())).toEqual({ b: "2" });
    expect(st.unflushedBatches).toBe(2);
    const puts = fb.count({ op: "put" });
    await st.flush();
    await h1.durable;
    await h2.durable;
    expect(fb.count({ op: "put" }) - puts).toBe(1);
    expect(st.durablePosition).toBe(2);
    const empty = fb.count({ op: "put" });
    await st.flush();
    expect(fb.count({ op: "put" })).toBe(empty);
    await st.close();

    const st2 = await open(fb, lake);
    expect(st2.position).toBe(2);
    expect(await dump(st2.snapshot())).toEqual({ b: "2" });
    expect(st2.write([{ key: b("c"), value: b("3") }]).position).toBe(3);
    await st2.close();
  });

  it("scan ranges, prefixes and limits", async () => {
    const st = await open(faultBucket(), lakeName("scan"));
    st.write(["a", "ab", "abc", "b", "ba", "c"].map((k) => ({ key: b(k), value: b(k.toUpperCase()) })));
    const keys = async (r: ScanRange): Promise<string[]> => {
      const out: string[] = [];
      for await (const kv of st.snapshot().scan(r)) out.push(s(kv.key)!);
      return out;
    };
    expect(await keys({ prefix: b("a") })).toEqual(["a", "ab", "abc"]);
    expect(await keys({ start: b("ab"), end: b("ba") })).toEqual(["ab", "abc", "b"]);
    expect(await keys({ prefix: b("a"), start: b("ab") })).toEqual(["ab", "abc"]);
    expect(await keys({ limit: 2 })).toEqual(["a", "ab"]);
    expect(await keys({ prefix: b("z") })).toEqual([]);
    await st.close();
  });

  it("snapshot isolation: write-write conflicts, read-only and disjoint transactions", async () => {
    const st = await open(faultBucket(), lakeName("si"));
    st.write([{ key: b("head"), value: b("0") }]);
    const t1 = st.begin();
    const t2 = st.begin();
    const ro = st.begin();
    const disjoint = st.begin();
    expect(s(await t1.get(b("head")))).toBe("0");
    t1.put(b("head"), b("1"));
    t2.put(b("head"), b("2"));
    disjoint.put(b("other"), b("x"));
    expect(s(await t1.get(b("head")))).toBe("1");
    t1.commit();
    expect(() => t2.commit()).toThrow(TransactionConflict);
    expect(await ro.get(b("head"))).toEqual(b("0"));
    const roHandle = ro.commit();
    expect(roHandle.position).toBe(1);
    disjoint.commit();
    expect(await dump(st.snapshot())).toEqual({ head: "1", other: "x" });
    // plain batches count as writes too
    const t3 = st.begin();
    t3.delete(b("other"));
    st.write([{ key: b("other"), value: b("y") }]);
    expect(() => t3.commit()).toThrow(TransactionConflict);
    expect(() => t3.put(b("z"), b("z"))).toThrow(TransactionClosed);
    await st.flush();
    await roHandle.durable;
    await st.close();
    expect(() => st.begin()).toThrow(StoreClosed);
  });

  it("conflict detection survives a flush between begin and commit; the index is trimmed", async () => {
    const st = await open(faultBucket(), lakeName("trim"));
    const t = st.begin();
    st.write([{ key: b("k"), value: b("1") }]);
    await st.flush();
    t.put(b("k"), b("2"));
    expect(() => t.commit()).toThrow(TransactionConflict);
    for (let i = 0; i < 50; i++) st.write([{ key: b(`x${i}`), value: b("v") }]);
    expect((st as unknown as { conflictIndexSize: number }).conflictIndexSize).toBe(0);
    const live = st.begin();
    for (let i = 0; i < 10; i++) st.write([{ key: b(`y${i}`), value: b("v") }]);
    expect((st as unknown as { conflictIndexSize: number }).conflictIndexSize).toBe(10);
    live.abort();
    expect((st as unknown as { conflictIndexSize: number }).conflictIndexSize).toBe(0);
    await st.close();
  });

  it("a write just before a transaction began is not a conflict, even while older transactions pin history", async () => {
    const st = await open(faultBucket(), lakeName("boundary"));
    const old = st.begin();
    st.write([{ key: b("k"), value: b("1") }]);
    const t = st.begin();
    t.put(b("k"), b("2"));
    t.commit();
    old.abort();
    expect(s(await st.snapshot().get(b("k")))).toBe("2");
    await st.close();
  });

  it("a transaction's scan merges its own writes and deletes with its cut", async () => {
    const st = await open(faultBucket(), lakeName("txscan"));
    st.write(["a", "b", "c"].map((k) => ({ key: b(k), value: b("old") })));
    const t = st.begin();
    st.write([{ key: b("d"), value: b("later") }]);
    t.delete(b("b"));
    t.put(b("c"), b("new"));
    t.put(b("e"), b("new"));
    expect(await dump(t)).toEqual({ a: "old", c: "new", e: "new" });
    await st.close();
  });
});
