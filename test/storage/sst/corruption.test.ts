/**
 * Damage is Corruption, never wrong data: every byte of a table is covered by a block checksum, a
 * section checksum held in the footer, the footer checksum or the magic, so flipping any byte makes
 * either open or a full read throw Corruption. Truncation and unknown versions are Corruption too.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Corruption } from "../../../storage/errors.ts";
import { type BuiltSst, buildSst } from "../../../storage/sst/builder.ts";
import { ReadCounters } from "../../../storage/sst/counters.ts";
import { crc32c } from "../../../storage/sst/crc32c.ts";
import { SstNotFound } from "../../../storage/sst/errors.ts";
import { FOOTER_BYTES } from "../../../storage/sst/footer.ts";
import { type SstOpenOptions, SstReader } from "../../../storage/sst/reader.ts";
import { assertProperty } from "../../support/property.ts";
import { bucket, collect, numberedEntries } from "./helpers.ts";

const ENTRIES = 600;
let built: BuiltSst | undefined;
async function table(): Promise<BuiltSst> {
  built ??= await buildSst(numberedEntries(ENTRIES, "k/", 9), { blockBytes: 256 });
  return built;
}

let nextKey = 0;
async function store(bytes: Uint8Array): Promise<string> {
  const key = `lakes/corrupt/sst/${String(nextKey++).padStart(20, "0")}-00000000000000000001.sst`;
  expect(await bucket.put(key, bytes)).not.toBeNull();
  return key;
}

/** Opens and reads everything; resolves to the error it threw, or undefined if all reads succeeded. */
async function readAll(key: string, options: SstOpenOptions = {}): Promise<unknown> {
  try {
    const r = await SstReader.open(bucket, key, options);
    const all = await collect(r.scan({}));
    for (const e of all.filter((_, i) => i % 50 === 0)) await r.get(e.key);
    return all.length === ENTRIES ? undefined : new Error(`read ${all.length} entries`);
  } catch (e) {
    return e;
  }
}

function flipped(bytes: Uint8Array, at: number, mask = 0x01): Uint8Array {
  const copy = bytes.slice();
  copy[at]! ^= mask;
  return copy;
}

/** A property: the table with any one byte flipped (by any mask) fails, opened with `options`, as Corruption. */
async function everyFlipIsCorruption(options: SstOpenOptions): Promise<void> {
  const { bytes } = await table();
  await assertProperty(
    fc.asyncProperty(
      fc.integer({ min: 0, max: bytes.length - 1 }),
      fc.integer({ min: 1, max: 255 }),
      async (at, mask) => {
        const err = await readAll(await store(flipped(bytes, at, mask)), options);
        expect(err).toBeInstanceOf(Corruption);
      },
    ),
    { numRuns: 60 },
  );
}

describe("sorted table corruption", () => {
  it("the undamaged table reads back in full (the baseline the other cases break)", async () => {
    const { bytes } = await table();
    expect(await readAll(await store(bytes))).toBeUndefined();
  });

  it("a flipped byte in a block fails the read of that block, not the open", async () => {
    const { bytes, summary } = await table();
    const key = await store(flipped(bytes, Math.floor(summary.metaOffset / 2)));
    const reader = await SstReader.open(bucket, key);
    await expect(collect(reader.scan({}))).rejects.toBeInstanceOf(Corruption);
    await expect(collect(reader.scan({}))).rejects.toThrow(/checksum mismatch/);
  });

  it("a flipped byte in the index, bloom, properties or footer fails the open", async () => {
    const { bytes, summary } = await table();
    const footerAt = bytes.length - FOOTER_BYTES;
    const spots = {
      index: summary.metaOffset + 3,
      bloom: footerAt - 40,
      props: footerAt - 2,
      footerOffsets: footerAt + 1,
      footerCounts: footerAt + 50,
      footerVersion: footerAt + 76,
      footerCrc: footerAt + 81,
      magic: bytes.length - 1,
    };
    for (const [what, at] of Object.entries(spots)) {
      const key = await store(flipped(bytes, at));
      for (const options of [
        {},
        { size: summary.size, metaOffset: summary.metaOffset },
        { tailBytes: 100 },
      ]) {
        const err = await SstReader.open(bucket, key, options).then(
          () => new Error(`${what} flip was not detected`),
          (e: unknown) => e,
        );
        expect(err, what).toBeInstanceOf(Corruption);
        expect((err as Corruption).code).toBe("Corruption");
      }
    }
  });

  it("any single flipped byte anywhere is Corruption on open or on read", async () => {
    await everyFlipIsCorruption({});
  });

  it("truncation is Corruption, with and without the manifest's size", async () => {
    const { bytes, summary } = await table();
    for (const keep of [bytes.length - 1, bytes.length - 50, bytes.length - FOOTER_BYTES - 5, 1000, 50, 0]) {
      const key = await store(bytes.slice(0, keep));
      expect(await readAll(key), `keep ${keep}`).toBeInstanceOf(Corruption);
      expect(
        await readAll(key, { size: summary.size, metaOffset: summary.metaOffset }),
        `keep ${keep}`,
      ).toBeInstanceOf(Corruption);
    }
  });

  it("an unknown format version is refused as Corruption even with a valid footer checksum", async () => {
    const { bytes } = await table();
    const copy = bytes.slice();
    const f = new DataView(copy.buffer, copy.length - FOOTER_BYTES, FOOTER_BYTES);
    f.setUint16(76, 2, true);
    f.setUint32(80, crc32c(copy, copy.length - FOOTER_BYTES, copy.length - 12), true);
    const err = await readAll(await store(copy));
    expect(err).toBeInstanceOf(Corruption);
    expect(String(err)).toMatch(/unsupported format version 2/);
  });

  it("an object that is not a table is Corruption; a missing one is SstNotFound", async () => {
    const junk = new Uint8Array(5000).map((_, i) => (i * 31) & 0xff);
    expect(await readAll(await store(junk))).toBeInstanceOf(Corruption);
    const missing = await SstReader.open(bucket, "lakes/corrupt/sst/nothing-here.sst").catch(
      (e: unknown) => e,
    );
    expect(missing).toBeInstanceOf(SstNotFound);
    expect((missing as SstNotFound).code).toBe("SstNotFound");
  });
});

describe("a table fetched whole (metadata and blocks in one GET)", () => {
  /** The options a cut's small table opens with (storage/layers.ts, WHOLE_TABLE_BYTES_MAX). */
  const whole = async (counters?: ReadCounters): Promise<SstOpenOptions> => {
    const { summary } = await table();
    return {
      size: summary.size,
      metaOffset: summary.metaOffset,
      wholeBytesMax: 1 << 20,
      holdWhole: () => true,
      ...(counters ? { counters } : {}),
    };
  };

  it("reads back in full from one GET", async () => {
    const { bytes } = await table();
    const counters = new ReadCounters();
    expect(await readAll(await store(bytes), await whole(counters))).toBeUndefined();
    expect(counters.r2Gets).toBe(1);
    expect(counters.wholeTables).toBe(1);
    expect(counters.bytesRead).toBe(bytes.length);
  });

  it("a flipped byte in a block still fails the read of that block, not the open (the read fetches it again)", async () => {
    const { bytes, summary } = await table();
    const key = await store(flipped(bytes, Math.floor(summary.metaOffset / 2)));
    const counters = new ReadCounters();
    const reader = await SstReader.open(bucket, key, await whole(counters));
    expect(counters.r2Gets).toBe(1);
    await expect(collect(reader.scan({}))).rejects.toThrow(/checksum mismatch/);
    // Only the damaged block was left out of what the open held: the scan fetched it alone.
    expect(counters.r2Gets).toBe(2);
  });

  it("any single flipped byte anywhere is Corruption on open or on read", async () => {
    await everyFlipIsCorruption(await whole());
  });

  it("truncation is Corruption naming both sizes", async () => {
    const { bytes, summary } = await table();
    for (const keep of [bytes.length - 1, bytes.length - FOOTER_BYTES - 5, 1000, 0]) {
      const err = await readAll(await store(bytes.slice(0, keep)), await whole());
      expect(err, `keep ${keep}`).toBeInstanceOf(Corruption);
      expect(String(err)).toContain(`manifest says ${summary.size} bytes, the object has ${keep}`);
    }
  });

  it("without a cache and without leave to hold the blocks, the open fetches the metadata only", async () => {
    const { bytes, summary } = await table();
    const counters = new ReadCounters();
    await SstReader.open(bucket, await store(bytes), { ...(await whole(counters)), holdWhole: () => false });
    expect(counters.wholeTables).toBe(0);
    expect(counters.bytesRead).toBe(summary.size - summary.metaOffset);
  });
});
