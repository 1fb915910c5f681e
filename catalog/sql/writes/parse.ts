/**
 * DuckLake's write statements over the `ducklake_*` tables, parsed into row operations. Only the
 * statement forms DuckLake 1.5.5's client-side commit sends are accepted (the templates of
 * `test/fixtures/quack/` captures); anything else is refused with its shape. Literals are DuckDB's:
 * numbers, strings, NULL, true/false, `NOW()` and `UUID()` (server-side values), `'…'::TYPE` and
 * `CAST('…' AS TYPE)` casts (the literal's text is the value).
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { type Statement, shapeOf, type Token, tokenize } from "../lexer.ts";
import { type SqlResult, T } from "../result.ts";

/** A literal as DuckLake wrote it. Numbers keep their text (ids are checked to be safe integers later). */
export type Literal =
  | { k: "null" }
  | { k: "bool"; v: boolean }
  /** `cast`: the type of a `CAST(… AS T)` / `…::T` around it, as written (a VARIANT value's type, 0700) */
  | { k: "num"; text: string; cast?: string }
  | { k: "str"; v: string; cast?: string }
  | { k: "now" }
  | { k: "uuid" }
  /** `[a, b, …]`: a LIST value of an inlined row */
  | { k: "list"; items: Literal[] }
  /** `{'f': a, …}`: a STRUCT value, fields in the order written */
  | { k: "struct"; fields: { name: string; v: Literal }[] }
  /** `MAP([k, …], [v, …])`: a MAP value, keys and values in entry order */
  | { k: "map"; keys: Literal[]; values: Literal[] };

export type RowOp =
  /** INSERT INTO t [(cols)] VALUES (…), (…) */
  | { op: "insert"; table: string; columns: string[] | null; rows: Literal[][] }
  /** CREATE TABLE [IF NOT EXISTS] t(col TYPE, …) */
  | { op: "create"; table: string; ifNotExists: boolean; columns: { name: string; type: string }[] }
  /** UPDATE t SET end_snapshot = N WHERE end_snapshot IS NULL AND key IN (ids) */
  | { op: "end"; table: string; endSnapshot: number; key: string; ids: number[] }
  /** UPDATE ducklake_<data|delete>_file SET end_snapshot = N WHERE <data|delete>_file_id = k: a rewrite's input */
  | { op: "end_file"; table: "ducklake_data_file" | "ducklake_delete_file"; endSnapshot: number; id: number }
  /** UPDATE ducklake_data_file SET begin_snapshot = N WHERE data_file_id = k: a rewrite's output */
  | { op: "begin_file"; beginSnapshot: number; id: number }
  /** UPDATE ducklake_table_stats SET record_count=?, file_size_bytes=?, next_row_id=? WHERE table_id=? */
  | { op: "table_stats"; tableId: number; recordCount: number; fileSizeBytes: number; nextRowId: number }
  /** WITH new_values(…) AS (VALUES …) UPDATE ducklake_table_column_stats … FROM new_values … */
  | { op: "column_stats"; rows: Literal[][] }
  /** WITH deleted_row_list(deleted_row_id) AS (VALUES …) UPDATE ducklake_inlined_data_… SET end_snapshot … */
  | { op: "end_inlined"; table: string; endSnapshot: number; rowIds: number[] }
  /** WITH overwritten_tags(tid[, cid], key) AS (VALUES …) UPDATE ducklake_[column_]tag SET end_snapshot … */
  | { op: "end_tags"; table: "ducklake_tag" | "ducklake_column_tag"; endSnapshot: number; rows: Literal[][] }
  /** WITH dropped_cols(tid, cid) AS (VALUES …) UPDATE ducklake_column SET end_snapshot … */
  | { op: "end_columns"; endSnapshot: number; rows: Literal[][] }
  /** DELETE FROM t WHERE key IN (ids): DuckLake removing rows it replaces (a rewritten delete file) */
  | { op: "delete"; table: string; key: string; ids: number[] }
  /** DELETE FROM ducklake_inlined_data_<t>_<sv> WHERE begin_snapshot <= N: ducklake_flush_inlined_data */
  | { op: "flush_inlined"; table: string; upTo: number }
  /** DELETE FROM ducklake_inlined_delete_<t>: the same flush, of deletes of Parquet files (its own request) */
  | { op: "flush_inlined_deletes"; table: string }
  /** DELETE FROM ducklake_snapshot[_changes] WHERE snapshot_id IN (ids): ducklake_expire_snapshots */
  | { op: "expire_snapshots"; table: "ducklake_snapshot" | "ducklake_snapshot_changes"; ids: number[] }
  /** DELETE FROM ducklake_<schema|view|tag|macro> WHERE end_snapshot IS NOT NULL AND NOT EXISTS(<a snapshot in its range>) */
  | { op: "prune_versions"; table: string }
  /** DELETE FROM ducklake_<macro_impl|macro_parameters|name_mapping> tbl WHERE NOT EXISTS (<its parent>) */
  | { op: "prune_orphans"; table: string }
  /** DELETE FROM ducklake_<per-table table> WHERE table_id IN (ids): expiry of tables dropped whole */
  | { op: "expire_table_rows"; table: string; ids: number[] }
  /** DELETE FROM ducklake_inlined_data_tables WHERE table_id = t AND schema_version = sv: a flushed older one */
  | { op: "retire_inlined"; tableId: number; schemaVersion: number }
  /** DROP TABLE IF EXISTS ducklake_inlined_data_<t>_<sv> | ducklake_inlined_delete_<t>: the same expiry */
  | { op: "drop_inlined"; table: string }
  /** UPDATE ducklake_metadata SET value=? WHERE key=? AND scope IS NULL | scope=? AND scope_id=? */
  | { op: "option_update"; key: string; value: string; scope: string | null; scopeId: number | null };

/** A cast keeps the literal's text as the value: only values written as text or numbers are cast. */
function castable(lit: Literal): boolean {
  return lit.k !== "now" && lit.k !== "uuid";
}

/** A cast literal keeps its type text: a VARIANT cell's type is the literal's (docs/decisions/0700-variant-values.md). */
function withCast(lit: Literal, type: string): Literal {
  return lit.k === "num" || lit.k === "str" ? { ...lit, cast: type } : lit;
}

/** Deepest nesting of LIST/STRUCT/MAP literals accepted (bounds the parser's recursion). */
export const MAX_NESTED_DEPTH = 64;

/** Most items one LIST or MAP literal may carry (an inlined row stays far below). */
export const MAX_NESTED_ITEMS = 100_000;

/** Most rows one INSERT may carry (DuckLake's largest batches stay far below). */
export const MAX_ROWS_PER_STATEMENT = 100_000;

class Cursor {
  i = 0;
  constructor(
    readonly stmt: Statement,
    readonly tokens: readonly Token[] = stmt.tokens,
  ) {}
  get done(): boolean {
    return this.i >= this.tokens.length;
  }
  peek(): Token | undefined {
    return this.tokens[this.i];
  }
  next(): Token {
    const t = this.tokens[this.i++];
    if (t === undefined) throw this.refuse();
    return t;
  }
  /** True (and consumed) when the next token is the word or operator `text` (case-insensitive). */
  eat(text: string): boolean {
    const t = this.peek();
    if (t === undefined || t.kind === "string" || t.kind === "quoted") return false;
    if (t.text.toUpperCase() !== text.toUpperCase()) return false;
    this.i++;
    return true;
  }
  expect(...texts: string[]): void {
    for (const text of texts) if (!this.eat(text)) throw this.refuse();
  }
  /** An identifier (bare or quoted), lower-cased when bare. */
  ident(): string {
    const t = this.next();
    if (t.kind === "quoted") return t.value;
    if (t.kind === "word") return t.value.toLowerCase();
    throw this.refuse();
  }
  /** `["main".]name`: DuckLake's tables all live in the metadata database's main schema. */
  tableName(): string {
    const first = this.ident();
    if (this.eat(".")) {
      if (first !== "main") throw this.refuse();
      return this.ident();
    }
    return first;
  }
  int(): number {
    const neg = this.eat("-");
    const t = this.next();
    if (t.kind !== "number" || !/^[0-9]+$/.test(t.text)) throw this.refuse();
    const n = Number(t.text) * (neg ? -1 : 1);
    if (!Number.isSafeInteger(n)) throw new InvalidRequest(`integer ${t.text} is out of range`);
    return n;
  }
  private depth = 0;
  literal(): Literal {
    if (++this.depth > MAX_NESTED_DEPTH) {
      throw new InvalidRequest(`a value nested more than ${MAX_NESTED_DEPTH} levels deep`);
    }
    try {
      return this.literalAt();
    } finally {
      this.depth--;
    }
  }
  private literalAt(): Literal {
    const t = this.next();
    let lit: Literal;
    if (t.kind === "string") lit = { k: "str", v: t.value };
    else if (t.kind === "number") lit = { k: "num", text: t.text };
    else if (t.kind === "op" && t.text === "-") {
      const n = this.next();
      if (n.kind !== "number") throw this.refuse();
      lit = { k: "num", text: `-${n.text}` };
    } else if (t.kind === "op" && t.text === "[") {
      // Nested values of inlined rows, as DuckLake writes them (docs/decisions/0244-quack-nested-literals.md).
      lit = { k: "list", items: this.items("]") };
    } else if (t.kind === "op" && t.text === "{") {
      const fields: { name: string; v: Literal }[] = [];
      do {
        const name = this.next();
        if (name.kind !== "string" && name.kind !== "quoted" && name.kind !== "word") throw this.refuse();
        this.expect(":");
        fields.push({ name: name.value, v: this.literal() });
      } while (this.eat(","));
      this.expect("}");
      lit = { k: "struct", fields };
    } else if (t.kind === "word" && t.value.toUpperCase() === "MAP" && this.eat("(")) {
      this.expect("[");
      const keys = this.items("]");
      this.expect(",", "[");
      const values = this.items("]");
      this.expect(")");
      if (keys.length !== values.length) throw this.refuse();
      lit = { k: "map", keys, values };
    } else if (t.kind === "word" && t.value.toUpperCase() === "CAST" && this.eat("(")) {
      // CAST('...' AS TYPE): DuckLake's form for dates, times, UUIDs, blobs and special floats.
      lit = this.literal();
      this.expect("AS");
      lit = withCast(lit, this.typeText());
      this.expect(")");
      if (!castable(lit)) throw this.refuse();
    } else if (t.kind === "word" && t.value.toUpperCase() === "CONCAT" && this.eat("(")) {
      // A VARCHAR holding NUL bytes: DuckDB writes `CONCAT('a', chr(0), 'b')` (Value::ToSQLString).
      let v = "";
      do v += this.textPart();
      while (this.eat(","));
      this.expect(")");
      lit = { k: "str", v };
    } else if (t.kind === "word" && t.value.toUpperCase() === "CHR" && this.peek()?.text === "(") {
      this.i--;
      lit = { k: "str", v: this.textPart() };
    } else if (t.kind === "word") {
      const w = t.value.toUpperCase();
      if (w === "NULL") lit = { k: "null" };
      else if (w === "TRUE" || w === "FALSE") lit = { k: "bool", v: w === "TRUE" };
      else if ((w === "NOW" || w === "UUID") && this.eat("(") && this.eat(")"))
        lit = w === "NOW" ? { k: "now" } : { k: "uuid" };
      else throw this.refuse();
    } else throw this.refuse();
    // `'…'::TYPE`: DuckLake casts inlined values of some types; the stored text is the literal's.
    if (this.eat("::")) {
      lit = withCast(lit, this.typeText());
      if (!castable(lit)) throw this.refuse();
    }
    return lit;
  }
  /** One part of a CONCAT of text: a string literal or `chr(<code point>)`. */
  private textPart(): string {
    const t = this.next();
    if (t.kind === "string") return t.value;
    if (!(t.kind === "word" && t.value.toUpperCase() === "CHR")) throw this.refuse();
    this.expect("(");
    const code = this.int();
    this.expect(")");
    if (code < 0 || code > 0x10ffff) throw new InvalidRequest(`chr(${code}) is not a code point`);
    return String.fromCodePoint(code);
  }
  /** Literals up to the closing `close` (already past the opening bracket); none for `[]`. */
  items(close: string): Literal[] {
    const out: Literal[] = [];
    if (this.eat(close)) return out;
    do {
      out.push(this.literal());
      if (out.length > MAX_NESTED_ITEMS) {
        throw new InvalidRequest(`more than ${MAX_NESTED_ITEMS} items in one nested value`);
      }
    } while (this.eat(","));
    this.expect(close);
    return out;
  }
  /** A column type as written (`DECIMAL(10,2)`, `VARCHAR[]`, `STRUCT(a INTEGER)`), up to `,` or `)`. */
  typeText(): string {
    const start = this.i;
    let depth = 0;
    while (!this.done) {
      const t = this.peek() as Token;
      if (depth === 0 && t.kind === "op" && (t.text === "," || t.text === ")")) break;
      if (t.kind === "op" && t.text === "(") depth++;
      if (t.kind === "op" && t.text === ")") depth--;
      this.i++;
    }
    const toks = this.tokens.slice(start, this.i);
    if (toks.length === 0) throw this.refuse();
    return toks.map((t) => t.text).join(" ");
  }
  tuple(): Literal[] {
    this.expect("(");
    const out: Literal[] = [this.literal()];
    while (this.eat(",")) out.push(this.literal());
    this.expect(")");
    return out;
  }
  tuples(): Literal[][] {
    const rows = [this.tuple()];
    while (this.eat(",")) {
      rows.push(this.tuple());
      if (rows.length > MAX_ROWS_PER_STATEMENT) {
        throw new InvalidRequest(`more than ${MAX_ROWS_PER_STATEMENT} rows in one INSERT`);
      }
    }
    return rows;
  }
  idList(): number[] {
    this.expect("(");
    const out = [this.int()];
    while (this.eat(",")) out.push(this.int());
    this.expect(")");
    return out;
  }
  end(): void {
    if (!this.done) throw this.refuse();
  }
  refuse(): Unsupported {
    return unsupported(this.stmt);
  }
}

export function unsupported(stmt: Statement): Unsupported {
  return new Unsupported(
    `write statement not recognised as a DuckLake commit template: ${shapeOf(stmt.tokens).slice(0, 500)}`,
  );
}

const TAG_TAIL =
  'UPDATE "main" . ducklake_tag SET end_snapshot = ? FROM overwritten_tags WHERE object_id = tid AND ducklake_tag . key = overwritten_tags . key AND end_snapshot IS NULL';
const COLUMN_TAG_TAIL =
  'UPDATE "main" . ducklake_column_tag SET end_snapshot = ? FROM overwritten_tags WHERE table_id = tid AND column_id = cid AND ducklake_column_tag . key = overwritten_tags . key AND end_snapshot IS NULL';
const DROPPED_COLUMNS_TAIL =
  'UPDATE "main" . ducklake_column SET end_snapshot = ? FROM dropped_cols WHERE table_id = tid AND column_id = cid AND end_snapshot IS NULL';

const COLUMN_STATS_TAIL =
  'UPDATE "main" . ducklake_table_column_stats SET contains_null = CAST ( new_contains_null AS BOOLEAN ) , contains_nan = CAST ( new_contains_nan AS BOOLEAN ) , min_value = new_min , max_value = new_max , extra_stats = new_extra_stats FROM new_values WHERE table_id = tid AND column_id = cid';

function parseInsert(c: Cursor): RowOp {
  c.expect("INSERT", "INTO");
  const table = c.tableName();
  let columns: string[] | null = null;
  if (c.eat("(")) {
    columns = [c.ident()];
    while (c.eat(",")) columns.push(c.ident());
    c.expect(")");
  }
  c.expect("VALUES");
  const rows = c.tuples();
  c.end();
  return { op: "insert", table, columns, rows };
}

function parseCreate(c: Cursor): RowOp {
  c.expect("CREATE", "TABLE");
  const ifNotExists = c.eat("IF");
  if (ifNotExists) c.expect("NOT", "EXISTS");
  const table = c.tableName();
  c.expect("(");
  const columns: { name: string; type: string }[] = [];
  do {
    const name = c.ident();
    columns.push({ name, type: c.typeText() });
  } while (c.eat(","));
  c.expect(")");
  c.end();
  return { op: "create", table, ifNotExists, columns };
}

function parseUpdate(c: Cursor): RowOp {
  c.expect("UPDATE");
  const table = c.tableName();
  c.expect("SET");
  if (table === "ducklake_table_stats") {
    const set: Record<string, number> = {};
    do {
      const col = c.ident();
      c.expect("=");
      set[col] = c.int();
    } while (c.eat(","));
    c.expect("WHERE", "table_id", "=");
    const tableId = c.int();
    c.end();
    const { record_count, file_size_bytes, next_row_id } = set;
    if (record_count === undefined || file_size_bytes === undefined || next_row_id === undefined) {
      throw c.refuse();
    }
    return {
      op: "table_stats",
      tableId,
      recordCount: record_count,
      fileSizeBytes: file_size_bytes,
      nextRowId: next_row_id,
    };
  }
  if (table === "ducklake_metadata") {
    c.expect("value", "=");
    const value = c.literal();
    c.expect("WHERE", "key", "=");
    const key = c.literal();
    c.expect("AND", "scope");
    let scope: string | null = null;
    let scopeId: number | null = null;
    if (c.eat("IS")) c.expect("NULL");
    else {
      c.expect("=");
      const sc = c.literal();
      c.expect("AND", "scope_id", "=");
      scopeId = c.int();
      if (sc.k !== "str") throw c.refuse();
      scope = sc.v;
    }
    c.end();
    if (value.k !== "str" || key.k !== "str") throw c.refuse();
    return { op: "option_update", key: key.v, value: value.v, scope, scopeId };
  }
  // ducklake_rewrite_data_files ends its inputs and begins its output one file at a time
  // (docs/decisions/0243-quack-rewrite-data-files.md).
  if (table === "ducklake_data_file" && c.eat("begin_snapshot")) {
    c.expect("=");
    const beginSnapshot = c.int();
    c.expect("WHERE", "data_file_id", "=");
    const id = c.int();
    c.end();
    return { op: "begin_file", beginSnapshot, id };
  }
  c.expect("end_snapshot", "=");
  const endSnapshot = c.int();
  c.expect("WHERE");
  const byId = table === "ducklake_data_file" ? "data_file_id" : "delete_file_id";
  if ((table === "ducklake_data_file" || table === "ducklake_delete_file") && c.peek()?.text === byId) {
    c.expect(byId, "=");
    const id = c.int();
    c.end();
    return { op: "end_file", table, endSnapshot, id };
  }
  // DuckLake writes the two conditions in either order (DROP TABLE vs SET PARTITIONED BY).
  const nullFirst = c.eat("end_snapshot");
  if (nullFirst) c.expect("IS", "NULL", "AND");
  const key = c.ident();
  c.expect("IN");
  const ids = c.idList();
  if (!nullFirst) c.expect("AND", "end_snapshot", "IS", "NULL");
  c.end();
  return { op: "end", table, endSnapshot, key, ids };
}

function parseWith(c: Cursor): RowOp {
  c.expect("WITH");
  const cte = c.ident();
  c.expect("(");
  while (!c.eat(")")) c.next();
  c.expect("AS", "(", "VALUES");
  const rows = c.tuples();
  c.expect(")");
  const tail = c.tokens.slice(c.i);
  const tailShape = shapeOf(tail);
  if (cte === "new_values" && tailShape === COLUMN_STATS_TAIL) {
    if (rows.some((r) => r.length !== 7)) throw c.refuse();
    return { op: "column_stats", rows };
  }
  const tailEnd = (): number => {
    const t = tail[7];
    if (t?.kind !== "number" || !/^[0-9]+$/.test(t.text)) throw c.refuse();
    return Number(t.text);
  };
  const lower = tailShape.toLowerCase();
  if (cte === "overwritten_tags" && lower === TAG_TAIL.toLowerCase()) {
    if (rows.some((r) => r.length !== 2)) throw c.refuse();
    return { op: "end_tags", table: "ducklake_tag", endSnapshot: tailEnd(), rows };
  }
  if (cte === "overwritten_tags" && lower === COLUMN_TAG_TAIL.toLowerCase()) {
    if (rows.some((r) => r.length !== 3)) throw c.refuse();
    return { op: "end_tags", table: "ducklake_column_tag", endSnapshot: tailEnd(), rows };
  }
  if (cte === "dropped_cols" && lower === DROPPED_COLUMNS_TAIL.toLowerCase()) {
    if (rows.some((r) => r.length !== 2)) throw c.refuse();
    return { op: "end_columns", endSnapshot: tailEnd(), rows };
  }
  if (cte === "deleted_row_list") {
    c.expect("UPDATE");
    const table = c.tableName();
    c.expect("SET", "end_snapshot", "=");
    const endSnapshot = c.int();
    c.expect("FROM", "deleted_row_list", "WHERE", "row_id", "=", "deleted_row_id", "AND", "end_snapshot");
    c.expect("IS", "NULL", "AND", "begin_snapshot", "!=");
    if (c.int() !== endSnapshot) throw c.refuse();
    c.end();
    const rowIds = rows.map((r) => {
      const l = r[0];
      if (r.length !== 1 || l?.k !== "num" || !/^[0-9]+$/.test(l.text)) throw c.refuse();
      return Number(l.text);
    });
    return { op: "end_inlined", table, endSnapshot, rowIds };
  }
  throw c.refuse();
}

/** Tables whose rows DuckLake removes by file id when it rewrites files (merge, delete-file rewrite). */
const FILE_ROW_TABLES = new Set([
  "ducklake_data_file",
  "ducklake_file_column_stats",
  "ducklake_file_partition_value",
  "ducklake_file_variant_stats",
  "ducklake_delete_file",
  "ducklake_files_scheduled_for_deletion",
]);

/** The per-table DuckLake tables whose rows expire_snapshots deletes by table_id for a table dropped whole. */
export const TABLE_ROW_TABLES = new Set([
  "ducklake_table",
  "ducklake_table_stats",
  "ducklake_table_column_stats",
  "ducklake_partition_info",
  "ducklake_partition_column",
  "ducklake_column",
  "ducklake_column_tag",
  "ducklake_sort_info",
  "ducklake_sort_expression",
  "ducklake_schema_versions",
  "ducklake_inlined_data_tables",
  "ducklake_column_mapping",
]);

/** The versioned tables expire_snapshots prunes by range, and the tail of that DELETE after the table. */
const PRUNABLE = new Set(["ducklake_schema", "ducklake_view", "ducklake_tag", "ducklake_macro"]);
const PRUNE_TAIL = shapeOf(
  tokenize(
    'WHERE end_snapshot IS NOT NULL AND NOT EXISTS( SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_id >= begin_snapshot AND snapshot_id < end_snapshot )',
  ),
);
/** Child tables expire_snapshots prunes once their parent rows are gone, with the parent's name and key. */
const ORPHAN_TAILS: Record<string, string> = {
  ducklake_macro_impl: shapeOf(
    tokenize(
      'tbl WHERE NOT EXISTS ( SELECT 1 FROM "main".ducklake_macro m WHERE m.macro_id = tbl.macro_id )',
    ),
  ),
  ducklake_macro_parameters: shapeOf(
    tokenize(
      'tbl WHERE NOT EXISTS ( SELECT 1 FROM "main".ducklake_macro m WHERE m.macro_id = tbl.macro_id )',
    ),
  ),
  ducklake_name_mapping: shapeOf(
    tokenize(
      'tbl WHERE NOT EXISTS ( SELECT 1 FROM "main".ducklake_column_mapping m WHERE m.mapping_id = tbl.mapping_id )',
    ),
  ),
};

/** Only file-row removals by id are accepted; maintenance's other DELETEs are refused by shape. */
function parseDelete(c: Cursor): RowOp {
  c.expect("DELETE", "FROM");
  const table = c.tableName();
  if (/^ducklake_inlined_data_\d+_\d+$/.test(table)) {
    // The flush's removal of the rows it wrote to a Parquet file (docs/decisions/0240-quack-flush-inlined-data.md).
    c.expect("WHERE", "begin_snapshot", "<=");
    const upTo = c.int();
    c.end();
    return { op: "flush_inlined", table, upTo };
  }
  if (/^ducklake_inlined_delete_\d+$/.test(table)) {
    // The flush's removal of the deletes it wrote to delete files (docs/decisions/0245-quack-flush-inlined-deletes.md).
    c.end();
    return { op: "flush_inlined_deletes", table };
  }
  // ducklake_expire_snapshots (docs/decisions/0241-quack-expire-snapshots.md).
  if (table === "ducklake_snapshot" || table === "ducklake_snapshot_changes") {
    c.expect("WHERE", "snapshot_id", "IN");
    const ids = c.idList();
    c.end();
    return { op: "expire_snapshots", table, ids };
  }
  if (TABLE_ROW_TABLES.has(table) && c.peek()?.text.toUpperCase() === "WHERE") {
    c.expect("WHERE", "table_id");
    if (table === "ducklake_inlined_data_tables" && c.eat("=")) {
      // After a flush, the registration of an emptied older inlined table (docs/decisions/0240-quack-flush-inlined-data.md).
      const tableId = c.int();
      c.expect("AND", "schema_version", "=");
      const schemaVersion = c.int();
      c.end();
      return { op: "retire_inlined", tableId, schemaVersion };
    }
    c.expect("IN");
    const ids = c.idList();
    c.end();
    return { op: "expire_table_rows", table, ids };
  }
  const tail = shapeOf(c.tokens.slice(c.i));
  if (PRUNABLE.has(table) && tail === PRUNE_TAIL) return { op: "prune_versions", table };
  if (ORPHAN_TAILS[table] !== undefined && tail === ORPHAN_TAILS[table])
    return { op: "prune_orphans", table };
  if (!FILE_ROW_TABLES.has(table)) throw c.refuse();
  c.expect("WHERE");
  const key = c.ident();
  if (key !== "data_file_id" && !(key === "delete_file_id" && table === "ducklake_delete_file"))
    throw c.refuse();
  c.expect("IN");
  const ids = c.idList();
  c.end();
  return { op: "delete", table, key, ids };
}

/**
 * A DuckDB row literal as DuckLake's server-side commit stages it (`'(1, ''a'', 1.50)'` in
 * `ducklake_staged_inlined_row.value_literals`): the tuple's values, in the table's column order.
 */
export function parseTupleText(text: string): Literal[] {
  const c = new Cursor({ text, tokens: tokenize(text) });
  const out = c.tuple();
  c.end();
  return out;
}

/** One write statement as a row operation, or `Unsupported` naming its shape. */
export function parseWrite(stmt: Statement): RowOp {
  const c = new Cursor(stmt);
  const head = c.peek();
  const word = head?.kind === "word" ? head.value.toUpperCase() : "";
  switch (word) {
    case "INSERT":
      return parseInsert(c);
    case "CREATE":
      return parseCreate(c);
    case "UPDATE":
      return parseUpdate(c);
    case "WITH":
      return parseWith(c);
    case "DELETE":
      return parseDelete(c);
    case "DROP": {
      // Only expire_snapshots' drop of a dropped table's inlined tables (docs/decisions/0241-quack-expire-snapshots.md).
      c.expect("DROP", "TABLE", "IF", "EXISTS");
      const table = c.tableName();
      c.end();
      if (!/^ducklake_inlined_(data_\d+_\d+|delete_\d+)$/.test(table)) throw c.refuse();
      return { op: "drop_inlined", table };
    }
    default:
      throw c.refuse();
  }
}

/**
 * What stock DuckDB answers for a statement: DDL a `Count` BIGINT column with no row, DML one row with
 * the number of rows the statement touched (counted while staging).
 */
export function resultOf(op: RowOp, touched: number): SqlResult {
  const columns = [{ name: "Count", type: T.BIGINT }];
  return op.op === "create" || op.op === "drop_inlined"
    ? { columns, rows: [] }
    : { columns, rows: [[BigInt(touched)]] };
}
