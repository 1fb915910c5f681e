/**
 * The client-side write capture (`tools/quack-write-capture.py`): every write request a stock DuckLake
 * client sent per step, and every `ducklake_*` and inlined table after it, one file per scenario under
 * `test/fixtures/quack/writes/` (each named for its scenario, carrying the DuckDB version it was captured
 * with), so no file nears biome's 1 MiB limit as scenarios are added. The capture tool refuses to write a
 * scenario this loader does not import.
 */

import alter from "../fixtures/quack/writes/alter.json";
import cleanup from "../fixtures/quack/writes/cleanup.json";
import comment from "../fixtures/quack/writes/comment.json";
import core from "../fixtures/quack/writes/core.json";
import drop_schema from "../fixtures/quack/writes/drop_schema.json";
import flush from "../fixtures/quack/writes/flush.json";
import flush_deletes from "../fixtures/quack/writes/flush_deletes.json";
import macro from "../fixtures/quack/writes/macro.json";
import maintenance from "../fixtures/quack/writes/maintenance.json";
import nested from "../fixtures/quack/writes/nested.json";
import option from "../fixtures/quack/writes/option.json";
import partition from "../fixtures/quack/writes/partition.json";
import rewrite from "../fixtures/quack/writes/rewrite.json";
import rewrite_some from "../fixtures/quack/writes/rewrite_some.json";
import types from "../fixtures/quack/writes/types.json";
import update_many from "../fixtures/quack/writes/update_many.json";
import view from "../fixtures/quack/writes/view.json";

export interface CapturedStep {
  step: string;
  writes: string[];
  rows: Record<string, Record<string, unknown>[]>;
}

export interface CapturedScenario {
  /** The DuckDB (and DuckLake) version the scenario was captured with. */
  duckdb: string;
  dataPath: string;
  steps: CapturedStep[];
}

/** Every captured scenario by name, in the capture's order. */
const scenarios: Record<string, unknown> = {
  core,
  types,
  nested,
  update_many,
  cleanup,
  view,
  macro,
  comment,
  option,
  partition,
  alter,
  drop_schema,
  flush,
  maintenance,
  rewrite,
  flush_deletes,
  rewrite_some,
};

const fixture: { scenarios: Record<string, CapturedScenario> } = {
  scenarios: scenarios as Record<string, CapturedScenario>,
};
export default fixture;
