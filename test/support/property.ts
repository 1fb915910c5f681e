/**
 * The one way this suite checks a fast-check property (docs/decisions/0176-reproducible-properties.md).
 * `assertProperty` is `fc.assert` plus three things a CI log needs to replay a failure:
 *  - the seed is chosen here (or read from `FC_SEED`, with `FC_PATH`, passed in by vitest.config.ts), so it
 *    is known before the first run and printed on every failure, even a vitest timeout;
 *  - every failure message ends with the exact replay command;
 *  - each run has a budget: a run that does not finish in it fails as a stall (seed, path, run index, the
 *    slowest finished run), and a property whose runs use up the test's time fails as slow, both before
 *    vitest's own timeout would kill the test with no word of the input.
 * The budgets are watchdogs far above any run's normal length, not assertions about speed.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { expect, onTestFailed, TestRunner } from "vitest";

/** What the test leaves to vitest after the property ends: its own asserts, its teardown. */
const END_MARGIN_MS = 5_000;
/** Without a test around the property (never in this suite), the time it may take. */
const NO_TEST_TIMEOUT_MS = 60_000;

/** The watchdog's time: the real one by default; the helper's own tests drive a manual one. */
export interface WatchdogClock {
  now(): number;
  /** Calls `fn` once `ms` have passed; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

const realClock: WatchdogClock = {
  now: () => Date.now(),
  after: (ms, fn) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

export interface PropertyOptions<Ts> extends fc.Parameters<Ts> {
  /**
   * A run that has not answered after this long fails as a stall (async properties; a synchronous run
   * cannot be interrupted). Default: half the test's timeout. Always capped by the time the test has left.
   */
  runBudgetMs?: number;
  /** The time the budgets are measured in (default: the real clock). */
  clock?: WatchdogClock;
}

/** The seed and path to replay, from `FC_SEED` / `FC_PATH` (empty or absent: a fresh random seed). */
export interface Replay {
  seed?: number;
  path?: string;
}

/** Parses the replay variables; a malformed seed is refused rather than silently replaced by a random one. */
export function replayFrom(vars: { FC_SEED?: string; FC_PATH?: string }): Replay {
  const out: Replay = {};
  const seed = vars.FC_SEED?.trim() ?? "";
  if (seed !== "") {
    if (!/^-?\d{1,10}$/.test(seed) || Number(seed) !== (Number(seed) | 0))
      throw new RangeError(
        `FC_SEED must be a 32-bit integer (as fast-check prints it), got ${JSON.stringify(seed)}`,
      );
    out.seed = Number(seed);
  }
  const path = vars.FC_PATH?.trim() ?? "";
  if (path !== "") {
    if (out.seed === undefined) throw new RangeError("FC_PATH replays a path of one seed: set FC_SEED too");
    if (!/^\d+(:\d+)*$/.test(path))
      throw new RangeError(`FC_PATH must look like 12:0:3, got ${JSON.stringify(path)}`);
    out.path = path;
  }
  return out;
}

/** fast-check's own default seed rule, drawn here so the seed is known before the property starts. */
const freshSeed = (): number => (Date.now() ^ (Math.random() * 0x1_0000_0000)) | 0;

/** Why a property ended early, decided by the budget watchdog. */
type Ending =
  | { kind: "stall"; run: number; budgetMs: number }
  | { kind: "slow"; run: number; elapsedMs: number };

/**
 * Times every run of the property it wraps and enforces the budgets. After a stall or when the time is
 * up, every further run (a shrink attempt) interrupts the check at once: shrinking a stall would replay
 * the stalling input many times over.
 */
class Watchdog<Ts> implements fc.IRawProperty<Ts> {
  runs = 0;
  slowest: { run: number; ms: number } | undefined;
  current: { run: number; startedAt: number } | undefined;
  ending: Ending | undefined;
  /** The first run that failed: later runs are fast-check shrinking it. */
  firstFailure: { run: number; error: unknown } | undefined;
  readonly startedAt: number;

  constructor(
    private readonly inner: fc.IRawProperty<Ts>,
    private readonly runBudgetMs: number,
    private readonly deadline: number,
    private readonly clock: WatchdogClock,
  ) {
    this.startedAt = clock.now();
  }

  isAsync(): boolean {
    return this.inner.isAsync();
  }
  generate(mrng: fc.Random, runId?: number): fc.Value<Ts> {
    return this.inner.generate(mrng, runId);
  }
  shrink(value: fc.Value<Ts>): fc.Stream<fc.Value<Ts>> {
    return this.inner.shrink(value);
  }
  runBeforeEach(): ReturnType<fc.IRawProperty<Ts>["runBeforeEach"]> {
    return this.inner.runBeforeEach();
  }
  runAfterEach(): ReturnType<fc.IRawProperty<Ts>["runAfterEach"]> {
    return this.inner.runAfterEach();
  }

  // The interface types `run` by whether the property is async; this wrapper is either, like its inner.
  run(v: Ts): ReturnType<fc.IRawProperty<Ts>["run"]> {
    if (this.ending !== undefined) return this.answer(new fc.PreconditionFailure(true));
    const run = this.runs;
    const now = this.clock.now();
    const left = this.deadline - now;
    if (left <= 0) {
      this.ending = { kind: "slow", run, elapsedMs: now - this.startedAt };
      return this.answer(new fc.PreconditionFailure(true));
    }
    this.runs++;
    this.current = { run, startedAt: now };
    if (!this.inner.isAsync()) {
      const out = this.inner.run(v) as fc.PreconditionFailure | fc.PropertyFailure | null;
      this.finished(run, now, out);
      return out as ReturnType<fc.IRawProperty<Ts>["run"]>;
    }
    const budgetMs = Math.min(this.runBudgetMs, left);
    let cancel: () => void = () => {};
    const stalled = new Promise<fc.PropertyFailure | fc.PreconditionFailure>((resolve) => {
      cancel = this.clock.after(budgetMs, () => {
        if (budgetMs < this.runBudgetMs) {
          // Cut short by the test's time, not by its own budget: the property is slow, and this input is no
          // counterexample (an interruption, so a failure found earlier stays the reported one).
          this.ending = { kind: "slow", run, elapsedMs: this.clock.now() - this.startedAt };
          resolve(new fc.PreconditionFailure(true));
        } else {
          this.ending = { kind: "stall", run, budgetMs };
          resolve({
            error: new Error(`run #${run} did not finish within its budget of ${budgetMs} ms (a stall)`),
          });
        }
      });
    });
    const done = (this.inner.run(v) as Promise<fc.PreconditionFailure | fc.PropertyFailure | null>).then(
      (out) => {
        this.finished(run, now, out);
        return out;
      },
    );
    return Promise.race([done, stalled]).finally(() => cancel()) as ReturnType<fc.IRawProperty<Ts>["run"]>;
  }

  private finished(
    run: number,
    startedAt: number,
    out: fc.PreconditionFailure | fc.PropertyFailure | null,
  ): void {
    if (out !== null && !fc.PreconditionFailure.isFailure(out) && this.firstFailure === undefined)
      this.firstFailure = { run, error: out.error };
    const ms = this.clock.now() - startedAt;
    if (this.slowest === undefined || ms > this.slowest.ms) this.slowest = { run, ms };
    this.current = undefined;
  }

  private answer(out: fc.PreconditionFailure): ReturnType<fc.IRawProperty<Ts>["run"]> {
    return (this.inner.isAsync() ? Promise.resolve(out) : out) as ReturnType<fc.IRawProperty<Ts>["run"]>;
  }

  /** Runs so far and the slowest finished one, for every message. */
  progress(): string {
    const slowest = this.slowest
      ? `slowest finished run #${this.slowest.run}: ${this.slowest.ms} ms`
      : "no run finished";
    const current = this.current
      ? `; run #${this.current.run} running for ${this.clock.now() - this.current.startedAt} ms`
      : "";
    return `${this.runs} runs in ${this.clock.now() - this.startedAt} ms, ${slowest}${current}`;
  }
}

/** The command that replays this property with this seed (and path, when one failed). */
function replayCommand(seed: number, path: string | null): string {
  const { testPath, currentTestName } = expect.getState();
  const file = testPath ? testPath.replace(/^.*?(?=test\/)/, "") : "<test file>";
  const name = (currentTestName ?? "").split(" > ").at(-1) ?? "";
  const quoted = `'${name.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&").replace(/'/g, "'\\''")}'`;
  return `FC_SEED=${seed}${path ? ` FC_PATH=${path}` : ""} npx vitest run ${file} -t ${quoted}`;
}

function verdict<Ts>(details: fc.RunDetails<Ts>, dog: Watchdog<Ts>, seed: number): string | undefined {
  const e = dog.ending;
  if (!details.failed && e === undefined) return undefined;
  let head: string;
  const first = dog.firstFailure;
  if (e?.kind === "slow" && details.failed && first !== undefined)
    head = `property failed at run #${first.run}; shrinking it was cut short when the test's time ran out (${e.elapsedMs} ms, ${details.numShrinks} shrinks): the counterexample below is the smallest found so far`;
  else if (e?.kind === "slow")
    head = `property too slow: its runs used the test's time (${e.elapsedMs} ms) by run #${e.run} (not a stall: no run outlasted its own budget)`;
  else if (e?.kind === "stall")
    head = `property stalled: run #${e.run} did not answer within ${e.budgetMs} ms (seed ${seed}, path ${details.counterexamplePath})`;
  else head = "property failed";
  // fast-check 4 keeps the error out of its report (it is the thrown error's cause); a CI log wants it here.
  const cause =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  const report = details.failed
    ? `${fc.defaultReportMessage(details) ?? ""}\nerror: ${cause}`
    : `seed: ${seed}`;
  return `${head}\n${dog.progress()}\n${report}\nreplay: ${replayCommand(seed, details.counterexamplePath)}`;
}

/**
 * Checks a property like `fc.assert`, reproducibly (see the file comment). Every property test in the
 * suite calls this, never `fc.assert`.
 */
export function assertProperty<Ts>(
  property: fc.IAsyncProperty<Ts>,
  options?: PropertyOptions<Ts>,
): Promise<void>;
export function assertProperty<Ts>(property: fc.IProperty<Ts>, options?: PropertyOptions<Ts>): void;
export function assertProperty<Ts>(
  property: fc.IRawProperty<Ts>,
  options: PropertyOptions<Ts> = {},
): Promise<void> | void {
  const { runBudgetMs, clock = realClock, ...params } = options;
  const replay = replayFrom(env);
  const seed = replay.seed ?? params.seed ?? freshSeed();
  const timeoutMs = TestRunner.getCurrentTest()?.timeout ?? NO_TEST_TIMEOUT_MS;
  const deadline = clock.now() + Math.max(1, timeoutMs - END_MARGIN_MS);
  const dog = new Watchdog(property, runBudgetMs ?? timeoutMs / 2, deadline, clock);
  let reported = false;
  // Any other end of the test (vitest's timeout, an assertion after the property) still names the seed.
  onTestFailed(() => {
    if (!reported)
      console.error(`fast-check seed ${seed}: ${dog.progress()}\nreplay: ${replayCommand(seed, null)}`);
  });
  const run: fc.Parameters<Ts> = {
    ...params,
    seed,
    ...(replay.path !== undefined ? { path: replay.path } : {}),
  };
  const conclude = (details: fc.RunDetails<Ts>): void => {
    const message = verdict(details, dog, seed);
    if (message === undefined) return;
    reported = true;
    throw new Error(message, { cause: details.errorInstance ?? undefined });
  };
  if (property.isAsync()) return (fc.check(dog, run) as Promise<fc.RunDetails<Ts>>).then(conclude);
  conclude(fc.check(dog, run) as fc.RunDetails<Ts>);
}
