/** Tables are written put-if-absent; a taken key is the typed SstExists and the first object survives. */
import { describe, expect, it } from "vitest";
import { SstBuilder } from "../../../storage/sst/builder.ts";
import { SstExists, SstInvalidInput } from "../../../storage/sst/errors.ts";
import { SstReader } from "../../../storage/sst/reader.ts";
import { writeSst } from "../../../storage/sst/writer.ts";
import { bucket, collect, show, te } from "./helpers.ts";

describe("sorted table put-if-absent and input checks", () => {
  it("a second write to the same (lake, epoch, id) throws SstExists and leaves the first table intact", async () => {
    const first = [{ key: te("a"), value: te("first") }];
    const info = await writeSst(bucket, { lake: "collide", epoch: 7, id: 3 }, first);
    const err = await writeSst(bucket, { lake: "collide", epoch: 7, id: 3 }, [
      { key: te("a"), value: te("second") },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SstExists);
    expect((err as SstExists).code).toBe("SstExists");
    expect((err as Error).message).toContain(info.key);
    const reader = await SstReader.open(bucket, info.key);
    expect(show(await collect(reader.scan({})))).toEqual(show(first));
  });

  it("unordered, duplicate or no entries are SstInvalidInput", () => {
    const b = new SstBuilder();
    b.add({ key: te("b"), value: te("1") });
    expect(() => b.add({ key: te("a"), value: te("1") })).toThrow(SstInvalidInput);
    expect(() => b.add({ key: te("b"), value: undefined })).toThrow(SstInvalidInput);
    expect(() => new SstBuilder().finish()).toThrow(SstInvalidInput);
    expect(() => new SstBuilder({ blockBytes: 10 })).toThrow(SstInvalidInput);
  });

  it("the builder copies keys, so a caller reusing its buffer cannot corrupt the table", async () => {
    const b = new SstBuilder({ blockBytes: 64 });
    const buf = new Uint8Array(1);
    for (let i = 0; i < 50; i++) {
      buf[0] = i;
      b.add({ key: buf, value: buf });
    }
    const { bytes } = b.finish();
    const key = "lakes/collide/sst/00000000000000000009-00000000000000000001.sst";
    await bucket.put(key, bytes);
    const got = await collect((await SstReader.open(bucket, key)).scan({}));
    expect(got.map((e) => [e.key[0], e.value?.[0]])).toEqual(Array.from({ length: 50 }, (_, i) => [i, i]));
  });
});
