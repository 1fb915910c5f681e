/**
 * A new lake's initialization batch, as DuckLake's ATTACH sends it when the metadata database has no
 * `ducklake_metadata` table: the 28 `CREATE TABLE "main".ducklake_*` statements and the initial rows
 * (snapshot 0, `created_schema:"main"`, the global metadata, the `main` schema). The lake is created by
 * the catalog's own bootstrap (`catalog/bootstrap.ts`) with the batch's `data_path`; every other value
 * the batch carries must be exactly the bootstrap's, so the lake is row-equal to what DuckLake would
 * have written (`created_by` excepted: it names this writer, see catalog/README.md). Decision record docs/decisions/0231-lake-creation-data-path.md.
 */
import { DUCKLAKE_VERSION } from "../../bootstrap.ts";
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { DUCKLAKE_TABLES } from "../../reads/ducklake-tables.ts";
import type { Literal, RowOp } from "./parse.ts";

/** Metadata keys DuckLake 1.5.5 writes at creation, with the values the bootstrap writes (null: any). */
const INITIAL_METADATA: Record<string, string | null> = {
  version: DUCKLAKE_VERSION,
  created_by: null,
  data_path: null,
  // DuckLake's ENCRYPTED option: each file's key is kept in its catalog row (ducklake_data_file and
  // ducklake_delete_file encryption_key), as stock keeps it (docs/decisions/0440-commit-space.md).
  encrypted: null,
};

/** What an initialization batch creates the lake with. */
export interface InitBatch {
  dataPath: string;
  encrypted: boolean;
}

function text(l: Literal | undefined): string | null | undefined {
  if (l === undefined) return undefined;
  if (l.k === "null") return null;
  if (l.k === "str") return l.v;
  if (l.k === "num") return l.text;
  if (l.k === "bool") return String(l.v);
  return `<${l.k}()>`;
}

function same(row: Literal[] | undefined, expected: (string | null)[]): boolean {
  return row !== undefined && row.length === expected.length && row.every((l, i) => text(l) === expected[i]);
}

function refuse(detail: string): Unsupported {
  return new Unsupported(`initialization batch: ${detail}; only DuckLake's own initial values are accepted`);
}

/** The batch's data_path and encryption when the ops are a lake's initialization batch; else undefined. */
export function initBatch(ops: readonly RowOp[]): InitBatch | undefined {
  const creates = ops.filter((o) => o.op === "create");
  if (!creates.some((o) => o.table === "ducklake_metadata")) return undefined;
  for (const c of creates) {
    if (!(c.table in DUCKLAKE_TABLES)) throw refuse(`it creates ${JSON.stringify(c.table)}`);
  }
  if (creates.length !== Object.keys(DUCKLAKE_TABLES).length) {
    throw refuse(`it creates ${creates.length} of the ${Object.keys(DUCKLAKE_TABLES).length} tables`);
  }
  let dataPath: string | undefined;
  let encrypted = false;
  const seen = new Set<string>();
  for (const op of ops) {
    if (op.op === "create") continue;
    if (op.op !== "insert") throw refuse(`it holds a ${op.op} statement`);
    seen.add(op.table);
    switch (op.table) {
      case "ducklake_snapshot":
        if (
          op.rows.length !== 1 ||
          op.rows[0]?.[1]?.k !== "now" ||
          !same(op.rows[0], ["0", "<now()>", "0", "1", "0"])
        )
          throw refuse("its snapshot row is not (0, NOW(), 0, 1, 0)");
        break;
      case "ducklake_snapshot_changes":
        if (op.rows.length !== 1 || !same(op.rows[0], ["0", 'created_schema:"main"', null, null, null]))
          throw refuse(`its snapshot_changes row is not (0, 'created_schema:"main"', NULL, NULL, NULL)`);
        break;
      case "ducklake_schema":
        if (op.rows.length !== 1 || !same(op.rows[0], ["0", "<uuid()>", "0", null, "main", "main/", "true"]))
          throw refuse("its schema row is not (0, UUID(), 0, NULL, 'main', 'main/', true)");
        break;
      case "ducklake_metadata": {
        if (op.columns?.join(",") !== "key,value")
          throw refuse("its metadata insert does not name (key, value)");
        const keys = new Set<string>();
        for (const row of op.rows) {
          const k = text(row[0]);
          const v = text(row[1]);
          if (typeof k !== "string" || typeof v !== "string" || row.length !== 2)
            throw refuse("a metadata row is not two strings");
          if (!(k in INITIAL_METADATA))
            throw refuse(`metadata key ${JSON.stringify(k)} is not an initial one`);
          const want = INITIAL_METADATA[k];
          if (want !== null && want !== v)
            throw refuse(`metadata ${k} is ${JSON.stringify(v)}, not ${JSON.stringify(want)}`);
          if (k === "data_path") dataPath = v;
          if (k === "encrypted") {
            if (v !== "true" && v !== "false") throw refuse(`metadata encrypted is ${JSON.stringify(v)}`);
            encrypted = v === "true";
          }
          keys.add(k);
        }
        if (keys.size !== Object.keys(INITIAL_METADATA).length) throw refuse("metadata keys are missing");
        break;
      }
      default:
        throw refuse(`it inserts into ${JSON.stringify(op.table)}`);
    }
  }
  for (const t of [
    "ducklake_snapshot",
    "ducklake_snapshot_changes",
    "ducklake_schema",
    "ducklake_metadata",
  ]) {
    if (!seen.has(t)) throw refuse(`it has no ${t} row`);
  }
  if (dataPath === undefined || dataPath === "")
    throw new InvalidRequest("initialization batch: data_path is empty");
  return { dataPath, encrypted };
}
