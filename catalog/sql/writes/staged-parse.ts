/**
 * DuckLake 1.5.5's server-side commit batch (`ducklake_commit`, docs/decisions/0260-staged-commit.md):
 * the 17 `CREATE TEMPORARY TABLE IF NOT EXISTS ducklake_staged_*`, their `TRUNCATE`s, the staged
 * `INSERT`s and `SELECT * FROM ducklake_commit('<schema>', <schema version>, max_retry_count => …,
 * retry_wait_ms => …, retry_backoff => …)`, all in one request. Parsed into the staged tables' rows; the
 * table shapes are pinned to the 1.5.5 wheel, so a client of another version is refused by shape.
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { type Statement, shapeOf, tokenize } from "../lexer.ts";
import { type Literal, parseWrite, unsupported } from "./parse.ts";

/** The staged tables of DuckLake 1.5.5 (`src/storage/ducklake_staged_commit.cpp`), column lists verbatim. */
export const STAGED_TABLES = {
  commit:
    "commit_author VARCHAR, commit_message VARCHAR, commit_extra_info VARCHAR, transaction_snapshot_id BIGINT, data_path VARCHAR, path_separator VARCHAR, transaction_next_catalog_id UBIGINT, transaction_next_file_id UBIGINT",
  data_file:
    "data_file_id BIGINT, table_id BIGINT, file_order BIGINT, path VARCHAR, path_is_relative BOOLEAN, file_format VARCHAR, record_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, row_id_start BIGINT, partition_id BIGINT, encryption_key VARCHAR, mapping_id UBIGINT, partial_max BIGINT, begin_snapshot BIGINT, compaction_id BIGINT",
  data_file_column_stats:
    "data_file_id BIGINT, table_id BIGINT, column_id BIGINT, column_size_bytes BIGINT, has_num_values BOOLEAN, num_values BIGINT, has_null_count BOOLEAN, null_count BIGINT, has_min BOOLEAN, min_value VARCHAR, has_max BOOLEAN, max_value VARCHAR, has_contains_nan BOOLEAN, contains_nan BOOLEAN, any_valid BOOLEAN, extra_stats VARCHAR",
  data_file_partition: "local_file_id BIGINT, partition_column_idx BIGINT, partition_value VARCHAR",
  delete_file:
    "table_id BIGINT, data_file_path VARCHAR, data_file_id BIGINT, file_name VARCHAR, format VARCHAR, delete_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, encryption_key VARCHAR, begin_snapshot BIGINT, max_snapshot BIGINT, source VARCHAR, overwrites_existing_delete BOOLEAN, overwrite_delete_file_id BIGINT, overwrite_delete_file_path VARCHAR, attached_local_file_id BIGINT",
  inlined_data: "table_id BIGINT, has_preserved_row_ids BOOLEAN",
  inlined_row: "table_id BIGINT, row_order BIGINT, preserved_row_id BIGINT, value_literals VARCHAR",
  inlined_column_stats:
    "table_id BIGINT, column_id BIGINT, column_size_bytes BIGINT, has_num_values BOOLEAN, num_values BIGINT, has_null_count BOOLEAN, null_count BIGINT, has_min BOOLEAN, min_value VARCHAR, has_max BOOLEAN, max_value VARCHAR, has_contains_nan BOOLEAN, contains_nan BOOLEAN, any_valid BOOLEAN, extra_stats VARCHAR",
  inlined_delete: "table_id BIGINT, inlined_table_name VARCHAR, deleted_row_id BIGINT",
  inlined_file_delete: "table_id BIGINT, file_id BIGINT, deleted_row_id BIGINT",
  dropped_file: "path VARCHAR, data_file_id BIGINT",
  tables_deleted_from: "table_id BIGINT",
  flushed_inlined: "inlined_table_name VARCHAR, schema_version BIGINT, flush_snapshot_id BIGINT",
  compaction:
    "compaction_id BIGINT, table_id BIGINT, compaction_type VARCHAR, row_id_start BIGINT, output_local_file_id BIGINT",
  compaction_source:
    "compaction_id BIGINT, source_order BIGINT, source_data_file_id BIGINT, source_path VARCHAR, source_row_count BIGINT, source_begin_snapshot BIGINT, source_max_partial_file_snapshot BIGINT, source_inlined_delete_count BIGINT, last_delete_file_id BIGINT, last_delete_path VARCHAR, last_delete_row_count BIGINT, last_delete_end_snapshot BIGINT",
  name_map: "map_id UBIGINT, table_id BIGINT",
  name_map_entry:
    "map_id UBIGINT, entry_id BIGINT, parent_entry_id BIGINT, source_name VARCHAR, target_field_id BIGINT, hive_partition BOOLEAN",
} as const;

export type StagedTable = keyof typeof STAGED_TABLES;
export type StagedRow = Record<string, Literal>;

/** What the client asks `ducklake_commit` for: DuckLake's own retry settings and the schema version it read. */
export interface CommitCall {
  metadataSchema: string;
  schemaVersion: number;
  maxRetryCount: number;
  retryWaitMs: number;
  retryBackoff: number;
}

export interface StagedBatch {
  rows: Record<StagedTable, StagedRow[]>;
  call: CommitCall;
}

const PREFIX = "ducklake_staged_";
const COLUMNS: Record<string, string[]> = Object.fromEntries(
  Object.entries(STAGED_TABLES).map(([t, cols]) => [
    t,
    cols.split(", ").map((c) => c.split(" ")[0] as string),
  ]),
);

const COMMIT_SHAPE = shapeOf(
  tokenize(
    "SELECT * FROM ducklake_commit('main', 1, max_retry_count => 1, retry_wait_ms => 1, retry_backoff => 1.5)",
  ),
);

function word(stmt: Statement, i: number): string {
  const t = stmt.tokens[i];
  return t?.kind === "word" ? t.value.toUpperCase() : "";
}

function stagedName(stmt: Statement, i: number): StagedTable {
  const t = stmt.tokens[i];
  const name = t?.kind === "word" || t?.kind === "quoted" ? t.value.toLowerCase() : "";
  const short = name.startsWith(PREFIX) ? name.slice(PREFIX.length) : "";
  if (!(short in STAGED_TABLES)) throw unsupported(stmt);
  return short as StagedTable;
}

/** True when the statement belongs to the server-side commit batch (so the request is one). */
export function isStagedStatement(stmt: Statement): boolean {
  if (word(stmt, 0) === "SELECT" && shapeOf(stmt.tokens) === COMMIT_SHAPE) return true;
  const name = (i: number) => {
    const t = stmt.tokens[i];
    return t?.kind === "word" || t?.kind === "quoted" ? t.value.toLowerCase().startsWith(PREFIX) : false;
  };
  if (word(stmt, 0) === "CREATE" && word(stmt, 1) === "TEMPORARY") return name(6);
  if (word(stmt, 0) === "TRUNCATE") return name(1);
  if (word(stmt, 0) === "INSERT" && word(stmt, 1) === "INTO") return name(2);
  return false;
}

function createShape(stmt: Statement): void {
  const t = stagedName(stmt, 6);
  const expected = shapeOf(
    tokenize(`CREATE TEMPORARY TABLE IF NOT EXISTS ${PREFIX}${t}(${STAGED_TABLES[t]})`),
  );
  if (shapeOf(stmt.tokens) !== expected) {
    throw new Unsupported(
      `${PREFIX}${t} is not declared as DuckLake 1.5.5 declares it (${STAGED_TABLES[t]}); this server speaks the 1.5.5 server-side commit`,
    );
  }
}

function int(l: Literal | undefined, what: string): number {
  const n = l?.k === "num" ? Number(l.text) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new InvalidRequest(`ducklake_commit: ${what} is not an integer`);
  return n;
}

function commitCall(stmt: Statement): CommitCall {
  const lits = stmt.tokens.filter((t) => t.kind === "string" || t.kind === "number");
  const num = (i: number): Literal => ({ k: "num", text: lits[i]?.text ?? "" });
  const schema = lits[0];
  const backoff = Number(lits[4]?.text);
  if (schema?.kind !== "string" || !Number.isFinite(backoff)) throw unsupported(stmt);
  return {
    metadataSchema: schema.value,
    schemaVersion: int(num(1), "the schema version"),
    maxRetryCount: int(num(2), "max_retry_count"),
    retryWaitMs: int(num(3), "retry_wait_ms"),
    retryBackoff: backoff,
  };
}

/**
 * The batch's staged rows and its `ducklake_commit` call. Every staged table must be declared and
 * truncated before rows go in, and the call must be the last statement: the temporary tables live only
 * for this request (docs/decisions/0260-staged-commit.md), so rows from an earlier request never count.
 */
export function parseStagedBatch(statements: readonly Statement[]): StagedBatch {
  const declared = new Set<StagedTable>();
  const truncated = new Set<StagedTable>();
  const rows = Object.fromEntries(Object.keys(STAGED_TABLES).map((t) => [t, [] as StagedRow[]])) as Record<
    StagedTable,
    StagedRow[]
  >;
  let call: CommitCall | undefined;
  for (const stmt of statements) {
    if (call !== undefined) {
      throw new InvalidRequest("ducklake_commit must be the last statement of its batch");
    }
    if (!isStagedStatement(stmt)) throw unsupported(stmt);
    const head = word(stmt, 0);
    if (head === "CREATE") {
      createShape(stmt);
      declared.add(stagedName(stmt, 6));
    } else if (head === "TRUNCATE") {
      const t = stagedName(stmt, 1);
      if (stmt.tokens.length !== 2) throw unsupported(stmt);
      if (!declared.has(t)) throw new InvalidRequest(`TRUNCATE ${PREFIX}${t} before it is declared`);
      truncated.add(t);
      rows[t] = [];
    } else if (head === "INSERT") {
      const t = stagedName(stmt, 2);
      if (!truncated.has(t)) {
        throw new InvalidRequest(
          `rows for ${PREFIX}${t} without its CREATE and TRUNCATE in the same request: the staged tables live for one request`,
        );
      }
      const op = parseWrite(stmt);
      if (op.op !== "insert" || op.columns !== null) throw unsupported(stmt);
      const cols = COLUMNS[t] as string[];
      for (const r of op.rows) {
        if (r.length !== cols.length) {
          throw new InvalidRequest(`${PREFIX}${t} has ${cols.length} columns, a row gives ${r.length}`);
        }
        rows[t].push(Object.fromEntries(cols.map((c, i) => [c, r[i] as Literal])));
      }
    } else {
      call = commitCall(stmt);
    }
  }
  if (call === undefined) throw new InvalidRequest("a staged commit batch must end with ducklake_commit");
  for (const t of Object.keys(STAGED_TABLES) as StagedTable[]) {
    if (!truncated.has(t)) {
      throw new InvalidRequest(
        `ducklake_commit without ${PREFIX}${t} declared and truncated in the same request: the staged tables live for one request`,
      );
    }
  }
  return { rows, call };
}
