/**
 * The property helper every property test uses (test/support/property.ts,
 * docs/decisions/0176-reproducible-properties.md): failures name their seed and path with a replay
 * command, the same seed and path replay the same counterexample, and a stall or a slow property fails
 * with the run it reached instead of running into vitest's timeout.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertProperty, replayFrom, type WatchdogClock } from "./property.ts";

/** Time the test moves by hand: a run "takes" what it advances, and due budget callbacks fire then. */
class ManualClock implements WatchdogClock {
  private t = 0;
  private readonly due: { at: number; fn: () => void; live: boolean }[] = [];
  now = (): number => this.t;
  after(ms: number, fn: () => void): () => void {
    const entry = { at: this.t + ms, fn, live: true };
    this.due.push(entry);
    return () => {
      entry.live = false;
    };
  }
  advance(ms: number): void {
    this.t += ms;
    for (const e of this.due) {
      if (e.live && e.at <= this.t) {
        e.live = false;
        e.fn();
      }
    }
  }
}

/** The message `assertProperty` threw, or a failure of this test when it did not throw. */
async function failure(check: () => Promise<void> | void): Promise<string> {
  try {
    await check();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("the property passed");
}

describe("assertProperty", () => {
  it("reads FC_SEED and FC_PATH, refusing malformed values instead of picking a random seed", () => {
    expect(replayFrom({})).toEqual({});
    expect(replayFrom({ FC_SEED: "", FC_PATH: "" })).toEqual({});
    expect(replayFrom({ FC_SEED: "-1234567" })).toEqual({ seed: -1234567 });
    expect(replayFrom({ FC_SEED: " 42 ", FC_PATH: "3:0:1" })).toEqual({ seed: 42, path: "3:0:1" });
    expect(() => replayFrom({ FC_SEED: "abc" })).toThrow(/FC_SEED must be a 32-bit integer/);
    expect(() => replayFrom({ FC_SEED: "4294967296" })).toThrow(/FC_SEED/);
    expect(() => replayFrom({ FC_PATH: "1:2" })).toThrow(/set FC_SEED too/);
    expect(() => replayFrom({ FC_SEED: "1", FC_PATH: "1;2" })).toThrow(/FC_PATH must look like/);
  });

  it("a failure names its seed and path with the replay command, and they replay the same counterexample", async () => {
    const calls: number[] = [];
    const prop = () =>
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.nat(), (n, m) => {
        calls.push(n);
        return n + (m % 3) < 1000;
      });
    const message = await failure(() => assertProperty(prop(), { seed: 1234 }));
    expect(message).toContain("property failed");
    expect(message).toContain("seed: 1234");
    const path = /path: "([\d:]+)"/.exec(message)?.[1];
    expect(path, message).toBeDefined();
    expect(message).toContain(
      `replay: FC_SEED=1234 FC_PATH=${path} npx vitest run test/support/property.test.ts -t `,
    );
    // Shrinking still works through the watchdog: the smallest failing n is found.
    const counterexample = /Counterexample: (\[.*\])/.exec(message)?.[1];
    expect(counterexample).toMatch(/^\[\d+,\d+\]$/);
    expect(
      Number(JSON.parse(counterexample as string)[0]) + (JSON.parse(counterexample as string)[1] % 3),
    ).toBe(1000);
    // The seed and path alone reproduce it: the first run is the shrunk counterexample itself.
    calls.length = 0;
    const again = await failure(() => assertProperty(prop(), { seed: 1234, path: path as string }));
    expect(again).toContain(`Counterexample: ${counterexample}`);
    expect(calls[0]).toBe(JSON.parse(counterexample as string)[0]);
  });

  it("a run that never answers fails as a stall naming the run, with no shrinking and no further runs", async () => {
    let runs = 0;
    const clock = new ManualClock();
    const message = await failure(() =>
      assertProperty(
        fc.asyncProperty(fc.nat(), async () => {
          runs++;
          // The fourth run hangs past its budget: a promise nothing will ever settle.
          if (runs === 4) {
            clock.advance(51);
            await new Promise<never>(() => {});
          }
        }),
        { seed: 7, runBudgetMs: 50, clock },
      ),
    );
    expect(message).toMatch(/^property stalled: run #3 did not answer within 50 ms \(seed 7, path 3\)/);
    expect(message).toContain("4 runs in");
    expect(message).toContain("slowest finished run #");
    expect(message).toContain("replay: FC_SEED=7 FC_PATH=3 ");
    expect(runs).toBe(4);
  });

  it("runs that each finish but together outlast the test fail as slow, before vitest's timeout", {
    // 200 ms for the property after the helper's 5 s end margin; every run takes 30 ms of the manual clock,
    // so 200 runs cannot fit.
    timeout: 5_200,
  }, async () => {
    let runs = 0;
    const clock = new ManualClock();
    const message = await failure(() =>
      assertProperty(
        fc.asyncProperty(fc.nat(), async () => {
          runs++;
          clock.advance(30);
        }),
        { numRuns: 200, clock },
      ),
    );
    expect(message).toMatch(/^property too slow: its runs used the test's time \(\d+ ms\) by run #\d+/);
    expect(message).toContain("not a stall");
    expect(message).toMatch(/seed: -?\d+/);
    expect(runs).toBeGreaterThan(0);
    expect(runs).toBeLessThan(200);
  });

  it("a failure whose shrinking outlasts the test is reported as that failure, with the smallest counterexample so far", {
    timeout: 5_200,
  }, async () => {
    const clock = new ManualClock();
    const message = await failure(() =>
      assertProperty(
        fc.asyncProperty(fc.integer({ min: 0, max: 1_000_000_000 }), async (n) => {
          clock.advance(30);
          if (n > 1000) throw new Error(`n = ${n} is too big`);
        }),
        { numRuns: 100, clock },
      ),
    );
    expect(message).toMatch(
      /^property failed at run #\d+; shrinking it was cut short when the test's time ran out/,
    );
    expect(message).toMatch(/Counterexample: \[\d+\]/);
    expect(message).toContain("is too big");
    expect(message).toMatch(/replay: FC_SEED=-?\d+ FC_PATH=[\d:]+ /);
  });

  it("a passing property passes, sync or async, with the run count fast-check was asked for", async () => {
    let sync = 0;
    assertProperty(
      fc.property(fc.nat(), () => {
        sync++;
      }),
      { numRuns: 37 },
    );
    expect(sync).toBe(37);
    let async = 0;
    await assertProperty(
      fc.asyncProperty(fc.nat(), async () => {
        async++;
      }),
      { numRuns: 23 },
    );
    expect(async).toBe(23);
  });
});
