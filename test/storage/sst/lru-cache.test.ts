/** The byte-bounded LRU against a simple model: never over budget, least recently used goes first. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LruCache } from "../../../storage/cache.ts";
import { assertProperty } from "../../support/property.ts";

describe("LruCache", () => {
  it("evicts least recently used entries to stay within its byte budget", async () => {
    const c = new LruCache(100);
    await c.put("a", new Uint8Array(40));
    await c.put("b", new Uint8Array(40));
    expect(await c.get("a")).toBeDefined(); // a is now most recent
    await c.put("c", new Uint8Array(40)); // evicts b
    expect(c.has("a")).toBe(true);
    expect(c.has("b")).toBe(false);
    expect(c.has("c")).toBe(true);
    await c.put("huge", new Uint8Array(101)); // larger than the budget: not cached, evicts nothing
    expect(c.has("huge")).toBe(false);
    expect(c.stats()).toMatchObject({ entries: 2, bytes: 80, evictions: 1, hits: 1 });
  });

  it("matches a model under random puts and gets", () => {
    const op = fc.oneof(
      fc.record({
        put: fc.constant(true),
        key: fc.integer({ min: 0, max: 9 }),
        size: fc.integer({ min: 0, max: 60 }),
      }),
      fc.record({ put: fc.constant(false), key: fc.integer({ min: 0, max: 9 }), size: fc.constant(0) }),
    );
    assertProperty(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const cap = 150;
        const cache = new LruCache(cap);
        let model: { key: string; size: number }[] = []; // least recent first
        for (const o of ops) {
          const k = String(o.key);
          if (o.put) {
            model = model.filter((e) => e.key !== k);
            if (o.size <= cap) model.push({ key: k, size: o.size });
            while (model.reduce((s, e) => s + e.size, 0) > cap) model.shift();
            cache.putSync(k, new Uint8Array(o.size));
          } else {
            const got = cache.getSync(k);
            const i = model.findIndex((e) => e.key === k);
            expect(got?.length).toBe(i < 0 ? undefined : model[i]!.size);
            if (i >= 0) model.push(...model.splice(i, 1));
          }
          const st = cache.stats();
          expect(st.bytes).toBeLessThanOrEqual(cap);
          expect(st.bytes).toBe(model.reduce((s, e) => s + e.size, 0));
          expect(st.entries).toBe(model.length);
        }
      }),
      { numRuns: 200 },
    );
  });
});
