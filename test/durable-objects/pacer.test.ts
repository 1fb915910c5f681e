import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../durable-objects/clock.ts";
import { FlushPacer } from "../../durable-objects/pacer.ts";
import { assertProperty } from "../support/property.ts";

const S = 100;
const F = 10;

/** A pacer whose flushes stay in the air until the test lands them. */
function rig(spacingMs = S) {
  const clock = new ManualClock();
  const flights: { startedAt: number; land: () => void }[] = [];
  const pacer = new FlushPacer(
    () =>
      new Promise<void>((resolve) => {
        flights.push({ startedAt: clock.now(), land: resolve });
      }),
    { spacingMs, clock },
  );
  /** Lands the flush in the air and lets the pacer see it. */
  const land = async (): Promise<void> => {
    const f = flights.at(-1);
    if (!f) throw new Error("no flush in the air");
    f.land();
    await Promise.resolve();
    await Promise.resolve();
  };
  return { clock, flights, pacer, land };
}

describe("flush pacer", () => {
  it("a lone commit that finds the spacing elapsed flushes at once", () => {
    const { pacer, flights } = rig();
    pacer.arrived(1);
    expect(flights).toHaveLength(1);
    expect(pacer.history[0]).toMatchObject({ cause: "at-once", carried: 1, startedAt: 0 });
  });

  it("a lone commit behind a rider-less flush waits only the floor since that flush started", async () => {
    const { pacer, flights, clock, land } = rig();
    pacer.arrived(1);
    clock.advance(2);
    await land();
    pacer.arrived(1);
    expect(flights).toHaveLength(1);
    clock.advance(F - 2 - 1);
    expect(flights).toHaveLength(1);
    clock.advance(1);
    expect(flights).toHaveLength(2);
    expect(pacer.history[1]).toMatchObject({ cause: "floor", startedAt: F });
    // Past the floor already: no wait at all.
    clock.advance(30);
    await land();
    pacer.arrived(1);
    expect(pacer.history[2]).toMatchObject({ cause: "floor", startedAt: F + 30 });
  });

  it("commits arriving during the floor wait share the flush", async () => {
    const { pacer, flights, clock, land } = rig();
    pacer.arrived(1);
    await land();
    clock.advance(1);
    pacer.arrived(1);
    pacer.arrived(1);
    pacer.arrived(3);
    clock.advance(F);
    expect(flights).toHaveLength(2);
    expect(pacer.history[1]?.carried).toBe(5);
  });

  it("behind a flush with riders and no measurement, the deferred flush waits the spacing out", async () => {
    const { pacer, flights, clock, land } = rig();
    pacer.arrived(8);
    await land();
    clock.advance(1);
    for (let i = 0; i < 20; i++) pacer.arrived(1);
    clock.advance(S - 2);
    expect(flights).toHaveLength(1);
    clock.advance(1);
    expect(flights).toHaveLength(2);
    expect(pacer.history[1]).toMatchObject({ cause: "deadline", carried: 20, startedAt: S });
  });

  it("once measured, a deferred flush closes when the population has arrived, never before the floor", async () => {
    const { pacer, flights, clock, land } = rig();
    pacer.arrived(8); // t=0, at once
    await land();
    clock.advance(1);
    for (let i = 0; i < 8; i++) pacer.arrived(1);
    clock.advance(S - 1); // deadline flush at t=S measures 8
    expect(pacer.history[1]).toMatchObject({ cause: "deadline", carried: 8 });
    await land();
    clock.advance(1);
    for (let i = 0; i < 8; i++) pacer.arrived(1);
    // The population is here one ms after the flush started: it waits for the floor, not the spacing.
    expect(flights).toHaveLength(2);
    clock.advance(F - 2);
    expect(flights).toHaveLength(2);
    clock.advance(1);
    expect(flights).toHaveLength(3);
    expect(pacer.history[2]).toMatchObject({ cause: "population", carried: 8, startedAt: S + F });
    // Past the floor, the eighth arrival closes it on the spot.
    await land();
    clock.advance(20);
    for (let i = 0; i < 7; i++) pacer.arrived(1);
    expect(flights).toHaveLength(3);
    pacer.arrived(1);
    expect(flights).toHaveLength(4);
    expect(pacer.history[3]).toMatchObject({ cause: "population", startedAt: S + F + 20 });
  });

  it("a coalesced batch weighs its members", async () => {
    const { pacer, flights, clock, land } = rig();
    pacer.arrived(8);
    await land();
    clock.advance(1);
    pacer.arrived(8);
    clock.advance(S);
    await land();
    clock.advance(F);
    pacer.arrived(8);
    expect(flights).toHaveLength(3);
    expect(pacer.history[2]).toMatchObject({ cause: "population", carried: 8 });
  });

  it("a measurement is trusted for ten spacings, then the next flush waits the spacing out again", async () => {
    const { pacer, clock, land } = rig();
    pacer.arrived(4);
    await land();
    clock.advance(1);
    pacer.arrived(4);
    clock.advance(S); // deadline at S: measurement of 4
    await land();
    // Rounds closing early on the population until the measurement is ten spacings old.
    let rounds = 0;
    while (clock.now() - S <= 10 * S - 2 * F) {
      clock.advance(F);
      pacer.arrived(4);
      await land();
      rounds++;
    }
    expect(rounds).toBeGreaterThan(50);
    expect(pacer.history.slice(2).every((r) => r.cause === "population")).toBe(true);
    clock.advance(3 * F);
    const before = pacer.flushCount;
    pacer.arrived(4);
    // The population is here, but the measurement is stale: no early close.
    expect(pacer.flushCount).toBe(before);
    clock.advance(S);
    expect(pacer.history.at(-1)?.cause).toBe("deadline");
  });

  it("only full-spacing flushes that carry less lower the mark, a few in a row", async () => {
    const { pacer, clock, land } = rig();
    pacer.arrived(8);
    await land();
    clock.advance(1);
    pacer.arrived(8);
    clock.advance(S);
    await land();
    expect(pacer.mark()).toBe(8);
    // The writers leave one by one; a lone one keeps waiting whole spacings until the mark decays.
    const causes: string[] = [];
    for (let i = 0; i < 6; i++) {
      clock.advance(1);
      pacer.arrived(1);
      clock.advance(S);
      await land();
      causes.push(pacer.history.at(-1)?.cause ?? "");
    }
    expect(causes.slice(0, 4)).toEqual(["deadline", "deadline", "deadline", "deadline"]);
    expect(pacer.mark()).toBe(1);
    // With the mark down to one, the lone rule is back: the floor, not the spacing.
    clock.advance(1);
    const before = pacer.flushCount;
    pacer.arrived(1);
    expect(pacer.flushCount).toBe(before + 1);
  });

  it("commits finding a flush in the air are scheduled a spacing after its start, one flush in the air", async () => {
    const { pacer, flights, clock, land } = rig();
    pacer.arrived(1);
    clock.advance(5);
    pacer.arrived(1);
    pacer.arrived(1);
    clock.advance(S);
    // The deadline passed while the first flush was still in the air: nothing starts until it lands.
    expect(flights).toHaveLength(1);
    await land();
    expect(flights).toHaveLength(2);
    expect(pacer.history[1]).toMatchObject({ cause: "deadline", carried: 2, startedAt: S + 5 });
  });

  it("a flush in the air that lands early leaves the next one to its spacing", async () => {
    const { pacer, flights, clock, land } = rig();
    pacer.arrived(1);
    clock.advance(5);
    pacer.arrived(1);
    clock.advance(20);
    await land();
    expect(flights).toHaveLength(1);
    clock.advance(S - 25);
    expect(flights).toHaveLength(2);
    expect(pacer.history[1]).toMatchObject({ cause: "deadline", startedAt: S });
  });

  it("spacing zero flushes every commit at once, still one in the air", async () => {
    const { pacer, flights, land } = rig(0);
    pacer.arrived(1);
    pacer.arrived(1);
    pacer.arrived(1);
    expect(flights).toHaveLength(1);
    await land();
    expect(flights).toHaveLength(2);
    expect(pacer.history[1]?.carried).toBe(2);
  });

  it("close cancels a scheduled flush and starts no more", async () => {
    const { pacer, flights, clock, land } = rig();
    pacer.arrived(1);
    await land();
    pacer.arrived(1);
    pacer.close();
    clock.advance(10 * S);
    pacer.arrived(1);
    expect(flights).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });

  it("invariants over random arrivals and flight times", async () => {
    await assertProperty(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200 }),
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 150 }),
            weight: fc.integer({ min: 1, max: 64 }),
            flight: fc.integer({ min: 0, max: 250 }),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        async (spacing, steps) => {
          const clock = new ManualClock();
          let inAir = 0;
          let maxInAir = 0;
          const flightOf: number[] = [];
          let landing: { at: number; land: () => void } | undefined;
          const pacer = new FlushPacer(
            () =>
              new Promise<void>((resolve) => {
                inAir++;
                maxInAir = Math.max(maxInAir, inAir);
                landing = {
                  at: clock.now() + (flightOf.shift() ?? 0),
                  land: () => {
                    inAir--;
                    resolve();
                  },
                };
              }),
            { spacingMs: spacing, clock },
          );
          const arrivals: { at: number; weight: number; landing: number | undefined }[] = [];
          const landDue = async (): Promise<void> => {
            while (landing !== undefined && clock.now() >= landing.at) {
              const l = landing;
              landing = undefined;
              l.land();
              await Promise.resolve();
              await Promise.resolve();
            }
          };
          const tick = async (ms: number): Promise<void> => {
            for (let i = 0; i < ms; i++) {
              await landDue();
              clock.advance(1);
            }
            await landDue();
          };
          for (const s of steps) {
            await tick(s.gap);
            flightOf.push(s.flight);
            arrivals.push({ at: clock.now(), weight: s.weight, landing: landing?.at });
            pacer.arrived(s.weight);
          }
          await tick(2000 + spacing * 2);
          const h = pacer.history;
          expect(maxInAir).toBeLessThanOrEqual(1);
          // Everything that arrived was flushed, exactly once.
          expect(h.reduce((a, r) => a + r.carried, 0)).toBe(arrivals.reduce((a, r) => a + r.weight, 0));
          for (let i = 1; i < h.length; i++) {
            // Flushes never come closer than the floor.
            expect(h[i]!.startedAt - h[i - 1]!.startedAt).toBeGreaterThanOrEqual(spacing / 10 - 1e-9);
          }
          // No commit waits for its flush longer than the spacing, or the flush in the air at arrival.
          for (const a of arrivals) {
            const bound = Math.max(a.at + spacing, a.landing ?? 0);
            const flush = h.find((r) => r.startedAt >= a.at);
            expect(flush).toBeDefined();
            expect(flush!.startedAt).toBeLessThanOrEqual(bound + 1);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("flush pacer landings", () => {
  it("whenLanded waits for the planned flush, not just the one in the air", async () => {
    const clock = new ManualClock();
    const lands: (() => void)[] = [];
    const pacer = new FlushPacer(() => new Promise<void>((r) => lands.push(r)), { spacingMs: 100, clock });
    await pacer.whenLanded();
    pacer.arrived(1);
    lands.shift()?.();
    await Promise.resolve();
    await Promise.resolve();
    clock.advance(1);
    pacer.arrived(1); // planned at the floor, not in the air yet
    let landed = false;
    const w = pacer.whenLanded().then(() => {
      landed = true;
    });
    await Promise.resolve();
    expect(landed).toBe(false);
    clock.advance(10);
    expect(lands).toHaveLength(1);
    lands.shift()?.();
    await w;
    expect(landed).toBe(true);
  });
});
