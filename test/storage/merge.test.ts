import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Bytes, ScanRange, SortedEntry, SortedSource } from "../../storage/api.ts";
import { compareBytes, inBounds, rangeBounds } from "../../storage/bytes.ts";
import { yieldToEventLoop } from "../../storage/maintenance.ts";
import { newMemTree } from "../../storage/memtable.ts";
import { mergeNewestFirst, SCAN_YIELD_EVERY_ENTRIES, visibleEntries } from "../../storage/merge.ts";
import { Cut } from "../../storage/read-view.ts";
import { assertProperty } from "../support/property.ts";

/** A sorted layer held in an array: the shape a sorted table presents to the read path. */
class ArrayLayer implements SortedSource {
  readonly entries: SortedEntry[];
  constructor(entries: Map<string, string | null>) {
    this.entries = [...entries]
      .map(([k, v]) => ({ key: hexBytes(k), value: v === null ? undefined : hexBytes(v) }))
      .sort((a, b) => compareBytes(a.key, b.key));
  }
  async get(key: Bytes): Promise<SortedEntry | undefined> {
    return this.entries.find((e) => compareBytes(e.key, key) === 0);
  }
  async *scan(range: ScanRange): AsyncIterable<SortedEntry> {
    const bounds = rangeBounds(range);
    for (const e of this.entries) if (inBounds(e.key, bounds)) yield e;
  }
}

const hexBytes = (h: string): Bytes => Uint8Array.from(h.match(/../g) ?? [], (x) => Number.parseInt(x, 16));
const hex = (b: Bytes): string => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
const keyHex = fc.uint8Array({ maxLength: 3 }).map(hex);
const layerArb = fc.array(fc.tuple(keyHex, fc.option(fc.constantFrom("01", "02", "0303"), { nil: null })), {
  maxLength: 12,
});

describe("newest-first merge over sorted layers", () => {
  it("equals overlaying the layers oldest to newest, with tombstones hiding older values", async () => {
    await assertProperty(
      fc.asyncProperty(
        layerArb,
        fc.array(layerArb, { maxLength: 4 }),
        fc.record({
          start: fc.option(keyHex, { nil: undefined }),
          prefix: fc.option(keyHex, { nil: undefined }),
          limit: fc.option(fc.nat(8), { nil: undefined }),
        }),
        async (memRaw, layersRaw, r) => {
          const mem = new Map(memRaw);
          const layers = layersRaw.map((l) => new Map(l));
          const model = new Map<string, string>();
          for (const l of [...layers].reverse().concat([mem])) {
            for (const [k, v] of l) v === null ? model.delete(k) : model.set(k, v);
          }
          const tree = newMemTree();
          for (const [k, v] of mem) tree.set(hexBytes(k), v === null ? null : hexBytes(v));
          const cut = new Cut(
            1,
            tree,
            layers.map((l) => new ArrayLayer(l)),
          );
          const range: ScanRange = {
            ...(r.start !== undefined ? { start: hexBytes(r.start) } : {}),
            ...(r.prefix !== undefined ? { prefix: hexBytes(r.prefix) } : {}),
            ...(r.limit !== undefined ? { limit: r.limit } : {}),
          };
          const bounds = rangeBounds(range);
          let expected = [...model]
            .filter(([k]) => inBounds(hexBytes(k), bounds))
            .sort(([a], [b]) => compareBytes(hexBytes(a), hexBytes(b)));
          if (r.limit !== undefined) expected = expected.slice(0, r.limit);
          const got: [string, string][] = [];
          for await (const kv of cut.scan(range)) got.push([hex(kv.key), hex(kv.value)]);
          expect(got).toEqual(expected);
          for (const [k] of memRaw.concat(...layersRaw)) {
            const v = await cut.get(hexBytes(k));
            expect(v === undefined ? undefined : hex(v)).toBe(model.get(k));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps tombstones for compaction and stops pulling sources when the consumer stops", async () => {
    const newer = new ArrayLayer(
      new Map([
        ["01", null],
        ["02", "aa"],
      ]),
    );
    const older = new ArrayLayer(
      new Map([
        ["01", "bb"],
        ["03", "cc"],
      ]),
    );
    const all: SortedEntry[] = [];
    for await (const e of mergeNewestFirst([newer.scan({}), older.scan({})])) all.push(e);
    expect(all.map((e) => [hex(e.key), e.value && hex(e.value)])).toEqual([
      ["01", undefined],
      ["02", "aa"],
      ["03", "cc"],
    ]);
    const firstOnly: string[] = [];
    for await (const kv of visibleEntries(mergeNewestFirst([newer.scan({}), older.scan({})]), 1))
      firstOnly.push(hex(kv.key));
    expect(firstOnly).toEqual(["02"]);
  });
});

describe("scans give the event loop a turn (docs/decisions/0181-scan-yields.md)", () => {
  /**
   * A layer of `n` tombstones (and `visible` live keys after them), answered without any I/O; `pulled`
   * counts the entries the scan has taken from it so far.
   */
  const tombstones = (n: number, visible = 0): SortedSource & { pulled: number } => ({
    pulled: 0,
    async get() {
      return undefined;
    },
    async *scan() {
      for (let i = 0; i < n + visible; i++) {
        const key = Uint8Array.of(1, i >> 16, (i >> 8) & 255, i & 255);
        this.pulled++;
        yield { key, value: i < n ? undefined : Uint8Array.of(1) };
      }
    },
  });

  /**
   * Scans one layer through a cut whose pause is counted, not slept: answers how many pauses the scan
   * took, the entries it stepped over before each (from the layer's own count), and the live keys seen.
   */
  async function pausesDuring(n: number, visible: number): Promise<{ at: number[]; seen: number }> {
    const layer = tombstones(n, visible);
    const at: number[] = [];
    const cut = new Cut(1, newMemTree(), [layer], [], async () => {
      at.push(layer.pulled);
    });
    let seen = 0;
    for await (const _ of cut.scan({})) seen++;
    return { at, seen };
  }

  it("a scan stepping over many tombstones pauses after every SCAN_YIELD_EVERY_ENTRIES entries", async () => {
    const r = await pausesDuring(SCAN_YIELD_EVERY_ENTRIES * 5, 3);
    // Exactly SCAN_YIELD_EVERY_ENTRIES entries pulled between two pauses: no stretch is longer.
    expect(r).toEqual({ at: [1, 2, 3, 4, 5].map((k) => k * SCAN_YIELD_EVERY_ENTRIES), seen: 3 });
  });

  it("a scan shorter than the bound never pauses", async () => {
    expect(await pausesDuring(SCAN_YIELD_EVERY_ENTRIES - 10, 3)).toEqual({ at: [], seen: 3 });
  });

  it("visible entries count toward the bound as tombstones do, and a limit ends the scan before a pause", async () => {
    expect((await pausesDuring(0, SCAN_YIELD_EVERY_ENTRIES * 2)).at).toHaveLength(2);
    let pauses = 0;
    const counted = async (): Promise<void> => {
      pauses++;
    };
    const layer = tombstones(SCAN_YIELD_EVERY_ENTRIES * 3, 1);
    let seen = 0;
    for await (const _ of new Cut(1, newMemTree(), [layer], [], counted).scan({ limit: 1 })) seen++;
    expect({ seen, pauses }).toEqual({ seen: 1, pauses: 3 });
    pauses = 0;
    for await (const _ of visibleEntries(layer.scan({}), 0, counted)) seen++;
    expect(pauses).toBe(0);
  });

  it("a cut pauses with the real macrotask turn unless told otherwise", () => {
    expect(new Cut(1, newMemTree(), []).scanPause).toBe(yieldToEventLoop);
  });
});
