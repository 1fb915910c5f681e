/**
 * Reasons kept findable: every decision record is listed in `docs/decisions/README.md` (the index, with
 * status and what it supersedes), and every row names a record that exists (decision
 * docs/decisions/0461-repo-checks.md). Runs in Node (`npm run test:repo`).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const DECISIONS = `${REPO}docs/decisions`;

const records = readdirSync(DECISIONS)
  .filter((f) => /^\d{4}-[a-z0-9-]+\.md$/.test(f))
  .sort();
const index = readFileSync(`${DECISIONS}/README.md`, "utf8");
// | [NNNN](file) | title (a `|` in it escaped) | status | supersedes |
const rows = [...index.matchAll(/^\|\s*\[(\d{4})\]\(([^)]+)\)\s*\|(?:[^|\\]|\\.)*\|\s*([^|]*?)\s*\|/gm)];

test("records are found (a reader that found nothing would pass)", () => {
  assert.ok(records.length > 50, `only ${records.length} records`);
});

test("every decision record is listed in the index", () => {
  const listed = new Set(rows.map((r) => r[2]));
  assert.deepEqual(
    records.filter((f) => !listed.has(f)),
    [],
  );
});

test("every row of the index names a record that exists, under its own number", () => {
  const files = new Set(records);
  assert.deepEqual(
    rows.filter((r) => !files.has(r[2]!) || !r[2]!.startsWith(r[1]!)).map((r) => r[0]),
    [],
  );
});

test("every row says its status", () => {
  const bad = rows.filter(
    (r) => !/^(accepted|superseded by|partly superseded by|withdrawn)/.test(r[3]!.trim()),
  );
  assert.deepEqual(
    bad.map((r) => r[0]),
    [],
  );
});

test("no two records share a number", () => {
  const numbers = records.map((f) => f.slice(0, 4));
  assert.deepEqual(
    numbers.filter((n, i) => numbers.indexOf(n) !== i),
    [],
  );
});
