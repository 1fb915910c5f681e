/**
 * Folder READMEs kept true: every source file of a folder is named in its README (by path below the
 * folder, or by file name), and the lake writer's RPC table lists every public RPC method (decision
 * docs/decisions/0461-repo-checks.md). Runs in Node (`npm run test:repo`).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { sourceFiles } from "./imports.ts";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const FOLDERS = ["storage", "parquet", "catalog", "maintenance", "durable-objects", "worker", "cli"];

/**
 * Files not yet named in their folder's README. The list only shrinks (it reached zero in session 11):
 * naming a file fails the test until its entry is removed here; a new file is named, never listed.
 */
const UNNAMED = new Set<string>([]);

function unnamed(folder: string): string[] {
  const readme = readFileSync(`${REPO}${folder}/README.md`, "utf8");
  return sourceFiles(REPO, [folder]).filter((f) => {
    const rel = f.slice(folder.length + 1);
    const base = rel.slice(rel.lastIndexOf("/") + 1);
    return !readme.includes(rel) && !readme.includes(`\`${base}\``) && !readme.includes(base);
  });
}

for (const folder of FOLDERS) {
  test(`${folder}/README.md names every file of ${folder}/`, () => {
    assert.deepEqual(
      unnamed(folder).filter((f) => !UNNAMED.has(f)),
      [],
      "name these files in the folder's README",
    );
  });
}

test("the list of unnamed files only shrinks", () => {
  const still = new Set(FOLDERS.flatMap(unnamed));
  assert.deepEqual(
    [...UNNAMED].filter((f) => !still.has(f)),
    [],
    "named now: remove them from UNNAMED",
  );
});

test("the lake writer's RPC table lists every public RPC method", () => {
  const shell = readFileSync(`${REPO}durable-objects/lake-writer.ts`, "utf8");
  const methods = [...shell.matchAll(/^ {2}async (\w+)\(\s*lake: string/gm)].map((m) => m[1]!);
  assert.ok(methods.length >= 10, `only ${methods.length} RPC methods found`);
  const readme = readFileSync(`${REPO}durable-objects/README.md`, "utf8");
  const rpc = readme.slice(readme.indexOf("## RPC surface"));
  assert.deepEqual(
    methods.filter((m) => !new RegExp(`^\\|\\s*\`${m}\\(`, "m").test(rpc)),
    [],
  );
});
