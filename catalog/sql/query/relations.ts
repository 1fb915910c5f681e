/**
 * The relations a metadata query reads, loaded before it runs: every `ducklake_*` table (rows from the
 * one row-faithful reader, `catalog/reads/ducklake-tables.ts`), and the inlined data and inlined delete
 * tables (`catalog/reads/inlined-tables.ts`). Cost bounds (decisions 0250 and 0420): a table reference
 * whose rows the query restricts to one `table_id` (a conjunct `x.table_id = <integer>` of its WHERE, of
 * an inner join's ON, of a LEFT JOIN's ON for its right side, or carried through `a.table_id =
 * b.table_id`) is read by that table's key prefix; any other reference reads its whole kind once per
 * published cut (memoised like the catalog load). The restriction only narrows what is loaded: the
 * query's own predicate still decides every row.
 */
import { MissingRelation, Unsupported } from "../../errors.ts";
import { columnVersionsOf, inlinedTablesOf, schemaVersionsOf, tableStatsOf } from "../../reads/by-table.ts";
import { DUCKLAKE_TABLES, FILE_ROWS, type Row, tableRows } from "../../reads/ducklake-tables.ts";
import { isInlinedTableName } from "../../reads/inlined-tables.ts";
import { withoutMergedAway } from "../../reads/table-files.ts";
import type { DeleteFileRecord } from "../../records.ts";
import { filesOf, requireInlined } from "../files/common.ts";
import { sqlTypeOf, storedSqlValue } from "../files/inlined-values.ts";
import { memoised, requireView, rowsOf } from "../metadata/common.ts";
import { DUCKLAKE_TABLE_SQL } from "../metadata/system-catalog.ts";
import type { SqlReadContext } from "../reads.ts";
import type { SqlType, SqlValue } from "../result.ts";
import type { Expr, FromItem, Query, Select, SetExpr } from "./ast.ts";
import type { Col, Rel } from "./run.ts";
import { internal } from "./values.ts";

type TableItem = FromItem & { k: "table" };

/** Column types of each `ducklake_*` table, read from DuckDB's rendering of its DDL. */
const TABLE_TYPES: ReadonlyMap<string, readonly SqlType[]> = new Map(
  Object.entries(DUCKLAKE_TABLE_SQL).map(([name, ddl]) => {
    const body = ddl.slice(ddl.indexOf("(") + 1, ddl.lastIndexOf(")"));
    const types = body.split(", ").map((def) => {
      const rest = def.replace(/^("(?:[^"]|"")*"|\S+)\s+/, "").replace(/\s+(PRIMARY KEY|NOT NULL)$/, "");
      return sqlTypeOf(rest);
    });
    return [name, types];
  }),
);

/** Tables read by one table's key prefix when the query restricts `table_id`. */
const PER_TABLE = new Set([
  "ducklake_data_file",
  "ducklake_delete_file",
  "ducklake_file_column_stats",
  "ducklake_file_variant_stats",
  "ducklake_file_partition_value",
  "ducklake_table_stats",
  "ducklake_table_column_stats",
  "ducklake_column",
  "ducklake_schema_versions",
  "ducklake_inlined_data_tables",
]);

/**
 * The order a stock catalog holds a versioned table's rows in, which is what a query without ORDER BY
 * (DuckDB's Quack catalog scan of `__ducklake_metadata_<lake>.ducklake_column`) shows: DuckLake inserts a
 * new version when the entry changes and only ends the old one, so rows stand in the order of the
 * snapshot that began them, then of their ids. Tables not listed keep id order (ids are allocated in
 * insertion order).
 */
const INSERTION_ORDER: Readonly<Record<string, readonly string[]>> = {
  ducklake_schema: ["begin_snapshot", "schema_id"],
  ducklake_table: ["begin_snapshot", "table_id"],
  ducklake_view: ["begin_snapshot", "view_id"],
  ducklake_column: ["begin_snapshot", "table_id", "column_id"],
  ducklake_tag: ["begin_snapshot", "object_id"],
  ducklake_column_tag: ["begin_snapshot", "table_id", "column_id"],
  ducklake_partition_info: ["begin_snapshot", "partition_id"],
  ducklake_sort_info: ["begin_snapshot", "sort_id"],
  ducklake_macro: ["begin_snapshot", "macro_id"],
};

function inInsertionOrder(table: string, rows: readonly Row[]): readonly Row[] {
  const keys = INSERTION_ORDER[table];
  if (!keys) return rows;
  const num = (v: Row[string] | undefined): number => (typeof v === "number" ? v : Number.NEGATIVE_INFINITY);
  return [...rows].sort((a, b) => {
    for (const k of keys) {
      const d = num(a[k]) - num(b[k]);
      if (d !== 0) return d;
    }
    return 0;
  });
}

function metadataRel(table: string, loaded: readonly Row[]): Rel {
  const rows = inInsertionOrder(table, loaded);
  const names = DUCKLAKE_TABLES[table] as readonly string[];
  const types = TABLE_TYPES.get(table) as readonly SqlType[];
  const cols: Col[] = names.map((name, i) => ({ name, type: { t: types[i] as SqlType } }));
  return {
    cols,
    rows: rows.map((r) => names.map((n, i) => internal((r[n] ?? null) as SqlValue, types[i] as SqlType))),
  };
}

async function perTableRows(ctx: SqlReadContext, table: string, tableId: number): Promise<Row[]> {
  const view = requireView(ctx);
  switch (table) {
    case "ducklake_data_file":
    case "ducklake_file_column_stats":
    case "ducklake_file_variant_stats":
    case "ducklake_file_partition_value":
      return tableRows(table, FILE_ROWS[table]((await filesOf(ctx, tableId)).data_files));
    case "ducklake_delete_file":
      return tableRows(table, (await filesOf(ctx, tableId)).delete_files as unknown as Row[]);
    case "ducklake_table_stats":
    case "ducklake_table_column_stats": {
      const stats = await tableStatsOf(view, tableId);
      const recs = table === "ducklake_table_stats" ? stats.stats : stats.columns;
      return tableRows(
        table,
        (recs as unknown as Row[]).filter((r) => r.end_snapshot === null || r.end_snapshot === undefined),
      );
    }
    case "ducklake_column":
      return tableRows(table, (await columnVersionsOf(view, tableId)) as unknown as Row[]);
    case "ducklake_schema_versions":
      return tableRows(table, (await schemaVersionsOf(view, tableId)) as unknown as Row[]);
    case "ducklake_inlined_data_tables":
      return tableRows(table, (await inlinedTablesOf(view, tableId)) as unknown as Row[]);
    default:
      throw new Unsupported(`metadata query: ${table} by table`);
  }
}

async function wholeRows(ctx: SqlReadContext, table: string): Promise<readonly Row[]> {
  const rows = await rowsOf(ctx, table);
  if (table !== "ducklake_delete_file") return rows;
  return memoised(
    ctx,
    "query:delete-files-as-sql",
    async () => withoutMergedAway(rows as unknown as DeleteFileRecord[]) as unknown as Row[],
  );
}

async function inlinedRel(ctx: SqlReadContext, name: string): Promise<Rel> {
  const table = await requireInlined(ctx, name);
  const types = table.columns.map(([, t]) => sqlTypeOf(t));
  return {
    cols: table.columns.map(([n], i) => ({ name: n, type: { t: types[i] as SqlType } })),
    rows: table.rows.map((r) =>
      table.columns.map(([n], i) => {
        const t = types[i] as SqlType;
        return internal(storedSqlValue(t, table.types[i], r[n] ?? null), t);
      }),
    ),
  };
}

/** Loads every relation the query names; the evaluator then asks for them by FROM item. */
export async function loadRelations(ctx: SqlReadContext, q: Query): Promise<(item: TableItem) => Rel> {
  const items: TableItem[] = [];
  const hints = new Map<TableItem, number>();
  const cteNames = new Set<string>();
  walkQuery(q, items, hints, cteNames);
  const loaded = new Map<TableItem, Rel>();
  await Promise.all(
    items.map(async (item) => {
      const name = item.name.toLowerCase();
      if (cteNames.has(name)) return;
      let rel: Rel;
      if (DUCKLAKE_TABLES[name]) {
        const id = hints.get(item);
        const rows =
          id !== undefined && PER_TABLE.has(name)
            ? await memoised(ctx, `query:${name}:${id}`, () => perTableRows(ctx, name, id))
            : await wholeRows(ctx, name);
        rel = await memoised(
          ctx,
          `query-rel:${name}:${id !== undefined && PER_TABLE.has(name) ? id : "all"}`,
          async () => metadataRel(name, rows),
        );
      } else if (isInlinedTableName(name)) {
        rel = await memoised(ctx, `query-inlined:${name}`, () => inlinedRel(ctx, name));
      } else {
        throw new Unsupported(`metadata query: the relation ${item.name} is not a DuckLake table`);
      }
      loaded.set(item, rel);
    }),
  );
  return (item) => {
    const rel = loaded.get(item);
    if (!rel) throw new MissingRelation(item.name);
    return rel;
  };
}

// ----------------------------------------------------------------------------------- table_id hints
function walkQuery(q: Query, items: TableItem[], hints: Map<TableItem, number>, ctes: Set<string>): void {
  for (const c of q.with) {
    ctes.add(c.name.toLowerCase());
    walkQuery(c.query, items, hints, ctes);
  }
  walkSet(q.body, items, hints, ctes);
  for (const o of q.orderBy) walkExpr(o.expr, items, hints, ctes);
}

function walkSet(s: SetExpr, items: TableItem[], hints: Map<TableItem, number>, ctes: Set<string>): void {
  if (s.k === "union") {
    walkSet(s.l, items, hints, ctes);
    walkSet(s.r, items, hints, ctes);
  } else if (s.k === "values") {
    for (const r of s.rows) for (const e of r) walkExpr(e, items, hints, ctes);
  } else walkSelect(s, items, hints, ctes);
}

function walkSelect(s: Select, items: TableItem[], hints: Map<TableItem, number>, ctes: Set<string>): void {
  const local: TableItem[] = [];
  const consts = new Map<string, number>();
  const edges: [string, string][] = [];
  const qualOf = (t: TableItem): string => (t.alias ?? t.name).toLowerCase();
  const conjunct = (e: Expr, rightQuals?: Set<string>, leftQuals?: Set<string>): void => {
    if (e.k === "bin" && e.op === "AND") {
      conjunct(e.l, rightQuals, leftQuals);
      conjunct(e.r, rightQuals, leftQuals);
      return;
    }
    if (e.k !== "bin" || e.op !== "=") return;
    const c = tableIdConst(e.l, e.r) ?? tableIdConst(e.r, e.l);
    if (c) {
      const q = c.qual ?? (local.length === 1 ? qualOf(local[0] as TableItem) : undefined);
      if (q !== undefined && (!rightQuals || rightQuals.has(q))) consts.set(q, c.value);
      return;
    }
    const a = tableIdCol(e.l);
    const b = tableIdCol(e.r);
    if (a && b) {
      if (!rightQuals) {
        edges.push([a, b], [b, a]);
      } else {
        if (leftQuals?.has(a) && rightQuals.has(b)) edges.push([a, b]);
        if (leftQuals?.has(b) && rightQuals.has(a)) edges.push([b, a]);
      }
    }
  };
  const walkFrom = (f: FromItem): Set<string> => {
    if (f.k === "table") {
      local.push(f);
      items.push(f);
      return new Set([qualOf(f)]);
    }
    if (f.k === "sub") {
      walkQuery(f.query, items, hints, ctes);
      return new Set(f.alias ? [f.alias.toLowerCase()] : []);
    }
    const l = walkFrom(f.l);
    const r = walkFrom(f.r);
    if (f.on) {
      if (f.type === "left") conjunct(f.on, r, l);
      else conjunct(f.on);
      walkExpr(f.on, items, hints, ctes);
    }
    return new Set([...l, ...r]);
  };
  if (s.from) walkFrom(s.from);
  if (s.where) {
    conjunct(s.where);
    walkExpr(s.where, items, hints, ctes);
  }
  for (const it of s.items) walkExpr(it.expr, items, hints, ctes);
  for (const g of s.groupBy) walkExpr(g, items, hints, ctes);
  if (s.having) walkExpr(s.having, items, hints, ctes);
  for (const d of s.distinctOn ?? []) walkExpr(d, items, hints, ctes);
  // Carry constants along table_id equalities.
  let changed = true;
  while (changed) {
    changed = false;
    for (const [from, to] of edges) {
      const v = consts.get(from);
      if (v !== undefined && !consts.has(to)) {
        consts.set(to, v);
        changed = true;
      }
    }
  }
  for (const t of local) {
    const v = consts.get(qualOf(t));
    if (v !== undefined) hints.set(t, v);
  }
}

function walkExpr(e: Expr, items: TableItem[], hints: Map<TableItem, number>, ctes: Set<string>): void {
  switch (e.k) {
    case "not":
    case "neg":
    case "isnull":
    case "cast":
      walkExpr(e.e, items, hints, ctes);
      return;
    case "bin":
      walkExpr(e.l, items, hints, ctes);
      walkExpr(e.r, items, hints, ctes);
      return;
    case "between":
      walkExpr(e.e, items, hints, ctes);
      walkExpr(e.lo, items, hints, ctes);
      walkExpr(e.hi, items, hints, ctes);
      return;
    case "in":
      walkExpr(e.e, items, hints, ctes);
      for (const x of e.list ?? []) walkExpr(x, items, hints, ctes);
      if (e.sub) walkQuery(e.sub, items, hints, ctes);
      return;
    case "exists":
    case "subq":
      walkQuery(e.sub, items, hints, ctes);
      return;
    case "case":
      if (e.operand) walkExpr(e.operand, items, hints, ctes);
      for (const [a, b] of e.whens) {
        walkExpr(a, items, hints, ctes);
        walkExpr(b, items, hints, ctes);
      }
      if (e.otherwise) walkExpr(e.otherwise, items, hints, ctes);
      return;
    case "fn":
      for (const a of e.args) walkExpr(a, items, hints, ctes);
      for (const o of e.orderBy ?? []) walkExpr(o.expr, items, hints, ctes);
      for (const p of e.over?.partitionBy ?? []) walkExpr(p, items, hints, ctes);
      for (const o of e.over?.orderBy ?? []) walkExpr(o.expr, items, hints, ctes);
      return;
    case "struct":
      for (const [, x] of e.fields) walkExpr(x, items, hints, ctes);
      return;
    case "like":
      walkExpr(e.e, items, hints, ctes);
      walkExpr(e.pattern, items, hints, ctes);
      return;
    default:
      return;
  }
}

function tableIdConst(col: Expr, lit: Expr): { qual?: string; value: number } | undefined {
  if (col.k !== "col" || col.name.toLowerCase() !== "table_id") return undefined;
  if (lit.k !== "lit" || lit.lit !== "int") return undefined;
  const value = Number(lit.value);
  if (!Number.isSafeInteger(value)) return undefined;
  return { qual: col.qual?.toLowerCase(), value };
}

function tableIdCol(e: Expr): string | undefined {
  return e.k === "col" && e.qual !== undefined && e.name.toLowerCase() === "table_id"
    ? e.qual.toLowerCase()
    : undefined;
}
