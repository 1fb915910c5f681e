/**
 * Shared head listings (storage/reader/head-lists.ts, docs/decisions/0761-read-staleness-contract.md): opens
 * that arrive while a listing is in flight share the next listing, never the one in flight, so a commit
 * acknowledged before an open arrives is always in the cut it reads. Deterministic: the first listing is
 * held after it read the bucket, by a gate the test opens.
 */
import { describe, expect, it } from "vitest";
import type { BucketListOptions, BucketListResult } from "../../../storage/api.ts";
import { openLatest } from "../../../storage/reader/index.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, DelegatingBucket, dump, faultBucket, lakeName, open, realBucket } from "../helpers.ts";

/** A real bucket whose first WAL listing reads the bucket, reports it, then waits for `release()`. */
class GatedBucket extends DelegatingBucket {
  lists = 0;
  private held = false;
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  private signal!: () => void;
  /** Resolves once the first listing has read the bucket (and is held). */
  readonly listed = new Promise<void>((resolve) => {
    this.signal = resolve;
  });
  override list = async (o?: BucketListOptions): Promise<BucketListResult> => {
    const r = await this.inner.list(o);
    if (!o?.prefix?.includes("/wal/")) return r;
    this.lists++;
    if (!this.held) {
      this.held = true;
      this.signal();
      await this.gate;
    }
    return r;
  };
  release(): void {
    this.open();
  }
}

describe("opens that arrive during a head listing", () => {
  it("share the next listing, never the one in flight: a commit acknowledged before they arrived is seen", async () => {
    const lake = lakeName("shared-head");
    const st = (await open(faultBucket(), lake)) as unknown as LakeStore;
    st.write([{ key: b("a"), value: b("1") }]);
    await st.flush();
    const bucket = new GatedBucket(realBucket());
    const first = openLatest(bucket, lake);
    await bucket.listed; // the first listing has read the head before the commit below
    st.write([{ key: b("b"), value: b("2") }]);
    await st.flush(); // acknowledged: durable before the next opens arrive
    const acknowledged = st.durablePosition;
    const later = [openLatest(bucket, lake), openLatest(bucket, lake), openLatest(bucket, lake)];
    bucket.release();
    const r1 = await first;
    expect(r1.position).toBeLessThan(acknowledged); // arrived before the commit: the older cut is right
    expect(await dump(r1)).toEqual({ a: "1" });
    for (const r of await Promise.all(later)) {
      expect(r.position).toBe(acknowledged);
      expect(await dump(r)).toEqual({ a: "1", b: "2" });
    }
    // Three opens, one listing: the one queued behind the first.
    expect(bucket.lists).toBe(2);
    // Nothing in flight: the next open lists again.
    await openLatest(bucket, lake);
    expect(bucket.lists).toBe(3);
  });
});
