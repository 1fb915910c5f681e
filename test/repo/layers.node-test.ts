/**
 * The layers, the catalog's door and the absence of import cycles, read from every import statement
 * (decision docs/decisions/0460-layer-check.md). Runs in Node (`npm run test:repo`), not workerd: it reads
 * the source tree.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { cycles, type ImportEdge, importGraph } from "./imports.ts";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** The production folders, bottom to top: a file may import its own folder and the folders below it. */
const LAYERS = [
  "client", // the generated HTTP client's types (imports nothing of ours)
  "storage", // the key-value store on R2; knows nothing of DuckLake
  "parquet", // Parquet bytes; no DuckLake, no R2
  "catalog", // DuckLake on the store; no R2, no Cloudflare
  "maintenance", // what the writer runs that PUTs objects, then commits
  "durable-objects", // hosting the writer; no DuckLake rules
  "ui", // the explorer's assets, served by the worker
  "worker", // HTTP and the Quack wire
  "cli", // the command line (talks HTTP; reuses a few pure helpers)
] as const;

/** Folders that must stay runnable in Node (benchmarks run them): no `cloudflare:` module. */
const HOST_FREE = ["storage", "parquet", "catalog", "maintenance"];

const QUACK = "the Quack wire reaches catalog/sql/ directly; to move behind the door";

/**
 * Imports from outside `catalog/` that do not go through `catalog/index.ts`, each with its reason. The
 * list only shrinks: an entry no longer used fails the test, so a moved import must leave it.
 */
const DOOR_EXCEPTIONS: Readonly<Record<string, string>> = {
  // The CLI loads in Node for every command; the door would load the whole catalog for one constant.
  "cli/rows.ts -> catalog/row-log-limits.ts": "one constant; the door loads the whole catalog",
  // The Quack front door speaks to catalog/sql/ (its own door, catalog/sql/index.ts, is not yet used by
  // these files); worker/quack/ is being reworked on another branch this session, so they move later.
  "worker/quack/chunk.ts -> catalog/sql/result.ts": QUACK,
  "worker/quack/handler.ts -> catalog/sql/cut-memo.ts": QUACK,
  "worker/quack/handler.ts -> catalog/sql/answer-cache.ts": QUACK,
  "worker/quack/handler.ts -> catalog/sql/kind.ts": QUACK,
  "worker/quack/handler.ts -> catalog/sql/lexer.ts": QUACK,
  "worker/quack/handler.ts -> catalog/sql/reads.ts": QUACK,
  "worker/quack/handler.ts -> catalog/sql/result.ts": QUACK,
  "worker/quack/handler.ts -> catalog/sql/writes/contract.ts": QUACK,
  "worker/quack/logical-type.ts -> catalog/sql/result.ts": QUACK,
  "worker/quack/messages.ts -> catalog/sql/result.ts": QUACK,
  "worker/quack/vector.ts -> catalog/sql/result.ts": QUACK,
};

const graph: ImportEdge[] = importGraph(REPO, LAYERS);
const layerOf = (file: string): number => LAYERS.indexOf(file.split("/")[0] as (typeof LAYERS)[number]);
const show = (e: ImportEdge): string => `${e.from}:${e.line} -> ${e.to}${e.typeOnly ? " (type)" : ""}`;

test("the graph is read (a parser that found nothing would pass every rule)", () => {
  assert.ok(graph.length > 1000, `only ${graph.length} imports found`);
  assert.ok(graph.some((e) => e.typeOnly) && graph.some((e) => !e.typeOnly));
});

test("no import runs up a layer", () => {
  const up = graph.filter((e) => layerOf(e.to) > layerOf(e.from)).map(show);
  assert.deepEqual(up, [], `imports running up a layer (${LAYERS.join(" < ")})`);
});

test("no runtime import cycle between files", () => {
  assert.deepEqual(cycles(graph.filter((e) => !e.typeOnly)), []);
});

test("no runtime import cycle between the catalog's folders", () => {
  // A folder is one node (verbs/ with its ops/); a root file is its own node; the door is left out (it
  // imports everything by design and nothing inside the catalog imports it).
  const node = (f: string): string => {
    const parts = f.split("/");
    return parts.length > 2 ? `catalog/${parts[1]}/` : f;
  };
  const inner = graph.filter(
    (e) =>
      !e.typeOnly &&
      e.from.startsWith("catalog/") &&
      e.to.startsWith("catalog/") &&
      e.from !== "catalog/index.ts" &&
      node(e.from) !== node(e.to),
  );
  const found = cycles(inner.map((e) => ({ from: node(e.from), to: node(e.to) })));
  const detail = found.map((c) =>
    inner.filter((e) => c.includes(node(e.from)) && c.includes(node(e.to))).map(show),
  );
  assert.deepEqual(detail, []);
});

test("nothing inside the catalog imports its door", () => {
  const inside = graph.filter((e) => e.from.startsWith("catalog/") && e.to === "catalog/index.ts").map(show);
  assert.deepEqual(inside, []);
});

test("outside the catalog, imports go through catalog/index.ts (or a listed exception)", () => {
  const skipping = graph.filter(
    (e) => !e.from.startsWith("catalog/") && e.to.startsWith("catalog/") && e.to !== "catalog/index.ts",
  );
  const unlisted = skipping.filter((e) => DOOR_EXCEPTIONS[`${e.from} -> ${e.to}`] === undefined).map(show);
  assert.deepEqual(unlisted, [], "import these through catalog/index.ts");
  const used = new Set(skipping.map((e) => `${e.from} -> ${e.to}`));
  const stale = Object.keys(DOOR_EXCEPTIONS).filter((k) => !used.has(k));
  assert.deepEqual(stale, [], "exceptions no longer used: remove them from DOOR_EXCEPTIONS");
});

test("the host-free layers import no Cloudflare module", () => {
  const files = graph.map((e) => e.from).filter((f) => HOST_FREE.includes(f.split("/")[0]!));
  const bad = [...new Set(files)].filter((f) =>
    /from\s+["']cloudflare:/.test(readFileSync(`${REPO}/${f}`, "utf8")),
  );
  assert.deepEqual(bad, []);
});
