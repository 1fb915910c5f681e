/**
 * The relations between limits, in one place (decision docs/decisions/0464-limits-document.md): a bound
 * that must stay below, above or equal to another is checked here, so changing one names the other.
 * Runs in Node (`npm run test:repo`); the values themselves are listed in docs/limits.md.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { FENCE_HOLD_MS } from "../../catalog/maintenance/cleanup.ts";
import {
  DUCKLAKE_DEFAULT_INLINING_ROW_LIMIT,
  MAX_FLUSH_ROWS_PER_STEP,
} from "../../catalog/maintenance/inline-flush-plan.ts";
import {
  MAX_JOB_RUNS_KEPT,
  MAX_JOB_RUNS_PAGE,
  MAX_JOB_RUNS_PER_APPEND,
} from "../../catalog/maintenance/runs.ts";
import {
  MAX_DEAD_LETTERS,
  MAX_DEAD_LETTERS_PAGE,
  MAX_FLUSH_RECORDS,
  MAX_OPS_PER_WRITE,
  MAX_UNFLUSHED_RECORDS,
} from "../../catalog/row-log-limits.ts";
import { IDLE_FLUSH_AFTER_MS } from "../../durable-objects/idle-flush.ts";
import { DEFAULT_TUNABLES } from "../../durable-objects/options.ts";
import { MAX_FLUSH_SPACING_MS } from "../../durable-objects/requests.ts";
import { MAX_FLUSH_ATTEMPTS_PER_CALL, MAX_FLUSH_BATCHES_PER_CALL } from "../../maintenance/rows-flush.ts";

test("the row log: one flush batch and one write fit in what the log may hold", () => {
  assert.ok(MAX_FLUSH_RECORDS <= MAX_UNFLUSHED_RECORDS);
  assert.ok(MAX_OPS_PER_WRITE <= MAX_UNFLUSHED_RECORDS);
  assert.ok(MAX_DEAD_LETTERS_PAGE <= MAX_DEAD_LETTERS);
  // A drain's attempts cover its batches (each stale plan and each narrowing step is one more).
  assert.ok(MAX_FLUSH_ATTEMPTS_PER_CALL >= MAX_FLUSH_BATCHES_PER_CALL);
});

test("the job history: a page and an append fit in what is kept", () => {
  assert.ok(MAX_JOB_RUNS_PAGE <= MAX_JOB_RUNS_KEPT);
  assert.ok(MAX_JOB_RUNS_PER_APPEND <= MAX_JOB_RUNS_KEPT);
});

test("a flush step can take at least DuckLake's default inlining limit of rows", () => {
  assert.ok(MAX_FLUSH_ROWS_PER_STEP >= DUCKLAKE_DEFAULT_INLINING_ROW_LIMIT);
});

test("a fence outlives any commit's flight (the submission slot's bound)", () => {
  assert.ok(FENCE_HOLD_MS > DEFAULT_TUNABLES.slotBoundMs);
});

test("the writer's defaults lie within what a caller may configure, and the idle flush rides the idle pass", () => {
  assert.ok(DEFAULT_TUNABLES.flushSpacingMs <= MAX_FLUSH_SPACING_MS);
  assert.equal(DEFAULT_TUNABLES.idleFlushAfterMs, IDLE_FLUSH_AFTER_MS);
  assert.equal(IDLE_FLUSH_AFTER_MS, DEFAULT_TUNABLES.backgroundIdleDelayMs);
});
