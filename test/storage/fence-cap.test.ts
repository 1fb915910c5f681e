/**
 * The manifest-wide cap on block-fence bytes (MANIFEST_FENCE_BYTES_MAX, storage/table-record.ts,
 * docs/decisions/0185-verified-blocks.md): fences stay on the newest records (a prefix of manifest order)
 * while they fit, later records are written without them, and every manifest the store writes holds
 * within the cap.
 */
import { describe, expect, it } from "vitest";
import type { SortedTableRecord } from "../../storage/manifest.ts";
import { newestManifest } from "../../storage/recovery.ts";
import { retryPolicy } from "../../storage/retry.ts";
import type { LakeStore } from "../../storage/store.ts";
import { capFences, fenceBytes, MANIFEST_FENCE_BYTES_MAX } from "../../storage/table-record.ts";
import { b, faultBucket, lakeName, open, realBucket } from "./helpers.ts";

/** A partition-like record with seven fences of 20-byte keys (~300 bytes of fence JSON, as measured in 0175). */
const record = (i: number, fences = true): SortedTableRecord =>
  ({
    key: `lakes/x/sst/00000000000000000001-${String(i).padStart(20, "0")}.sst`,
    level: 1,
    ...(fences
      ? { fences: Array.from({ length: 7 }, (_, j) => ["ab".repeat(20), 32_768 * (j + 1) + i]) }
      : {}),
  }) as SortedTableRecord;

const total = (rs: readonly SortedTableRecord[]): number => rs.reduce((n, r) => n + fenceBytes(r), 0);

describe("the manifest's fence cap", () => {
  it("keeps fences on the longest prefix that fits and drops them from every later record", () => {
    const records = Array.from({ length: 120 }, (_, i) => record(i, i % 10 !== 3));
    expect(total(records)).toBeGreaterThan(MANIFEST_FENCE_BYTES_MAX);
    const capped = capFences(records);
    expect(total(capped)).toBeLessThanOrEqual(MANIFEST_FENCE_BYTES_MAX);
    const kept = capped.map((r) => fenceBytes(r) > 0);
    const firstDropped = kept.findIndex((k, i) => !k && fenceBytes(records[i] as SortedTableRecord) > 0);
    expect(firstDropped).toBeGreaterThan(30);
    // A prefix: nothing after the first dropped record keeps fences; everything else is unchanged.
    expect(kept.slice(firstDropped).every((k) => !k)).toBe(true);
    capped.forEach((r, i) => {
      const { fences: _, ...rest } = records[i] as SortedTableRecord & { fences?: unknown };
      expect(r).toEqual(i < firstDropped ? records[i] : rest);
    });
    // Under the cap nothing changes.
    expect(capFences(records.slice(0, 10))).toEqual(records.slice(0, 10));
  });

  it("holds in every manifest the store writes, whatever its edit names", async () => {
    const lake = lakeName("fence-cap");
    const st = (await open(faultBucket(), lake)) as LakeStore;
    st.write([{ key: b("k"), value: b("v") }]);
    await st.flush();
    // An edit naming far more fence bytes than the cap (records never read: the lake is not reopened).
    await st.writeManifest((m) => ({ ...m, sortedTables: Array.from({ length: 120 }, (_, i) => record(i)) }));
    await st.close();
    const written = await newestManifest(realBucket(), lake, retryPolicy({}));
    expect(written?.sortedTables).toHaveLength(120);
    expect(total(written?.sortedTables ?? [])).toBeLessThanOrEqual(MANIFEST_FENCE_BYTES_MAX);
    expect(total(written?.sortedTables ?? [])).toBeGreaterThan(MANIFEST_FENCE_BYTES_MAX - 400);
  });
});
