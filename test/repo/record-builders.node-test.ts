/**
 * Record builders as the only constructors: a new data-file or delete-file record is built by
 * `catalog/file-records.ts` alone (`newDataFileRecord`, `newDeleteFileRecord`), whichever write door
 * builds it (verbs, the client-side translator, the server-side staged commit through both), so a new
 * DuckLake column has one home for its default (docs/decisions/0740-record-builders.md). Runs in Node
 * (`npm run test:repo`).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { sourceFiles } from "./imports.ts";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const HOME = "catalog/file-records.ts";
/** Where record types are declared (an interface lists the fields, it builds nothing). */
const DECLARED = new Set(["catalog/records.ts"]);

/** A typed record literal: `: DataFileRecord = {`, `satisfies DeleteFileRecord`, … */
const TYPED =
  /(?::\s*(?:DataFileRecord|DeleteFileRecord)\s*=\s*\{)|(?:satisfies\s+(?:DataFileRecord|DeleteFileRecord)\b)/;

/**
 * An untyped literal with a file record's shape (a return of a function typed to give one): two of the
 * record's columns that only it has, assigned values, within a few lines of each other.
 */
const SHAPES: readonly [RegExp, RegExp][] = [
  [/^\s*row_id_start:\s*(?!\s|number\b|z\.)/, /^\s*file_format:\s*(?!\s|string\b|z\.)/],
  [/^\s*delete_count:\s*(?!\s|number\b|z\.)/, /^\s*delete_file_id:\s*(?!\s|number\b|z\.)/],
];
const WINDOW = 20;
const BUILDER_CALL = /\bnew(?:Data|Delete)FileRecord\(/;

function handBuilt(file: string): string[] {
  const lines = readFileSync(`${REPO}${file}`, "utf8").split("\n");
  const out: string[] = [];
  lines.forEach((l, i) => {
    if (TYPED.test(l)) out.push(`${file}:${i + 1}: ${l.trim()}`);
    for (const [a, b] of SHAPES) {
      if (!a.test(l)) continue;
      const before = lines.slice(Math.max(0, i - WINDOW), i);
      // The builder's own input: a literal handed to it.
      if (before.some((x) => BUILDER_CALL.test(x))) continue;
      const near = lines.slice(Math.max(0, i - WINDOW), i + WINDOW);
      if (near.some((x) => b.test(x))) out.push(`${file}:${i + 1}: ${l.trim()}`);
    }
  });
  return out;
}

test("data-file and delete-file records are built only by catalog/file-records.ts", () => {
  const files = sourceFiles(REPO, ["catalog", "maintenance", "durable-objects", "worker", "cli", "storage"]);
  assert.ok(files.includes(HOME), `${HOME} is missing`);
  const found = files.filter((f) => f !== HOME && !DECLARED.has(f)).flatMap(handBuilt);
  assert.deepEqual(found, [], "build these through newDataFileRecord / newDeleteFileRecord");
});

test("the builder file itself matches the check (a check that matches nothing would pass)", () => {
  assert.ok(handBuilt(HOME).length >= 2);
});
