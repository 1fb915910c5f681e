/**
 * inline_insert checks every value against its column type (catalog/values/, property-tested against
 * stock DuckDB in values.test.ts) and stores the canonical form; alter_column re-checks inlined rows;
 * inlined rows are bounded per commit and per table (docs/decisions/0121-inlined-row-limits.md).
 */
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  Constraint,
  InvalidRequest,
  inlinedTablesAt,
  MAX_INLINED_DELETES_PER_COMMIT,
  MAX_INLINED_ROWS_PER_COMMIT,
  MAX_INLINED_ROWS_PER_TABLE,
  Unsupported,
  type Verb,
} from "../../catalog/index.ts";
import { maxOf, minOf } from "../../catalog/verbs/ops/inline.ts";
import type { Store } from "../../storage/api.ts";
import { fresh, settle } from "./support.ts";

const T = { name: "t" };

async function commit(store: Store, catalog: Catalog, verbs: Verb[]): Promise<void> {
  const out = await catalog.commit({ verbs });
  await settle(store, out.durable);
}

async function withTable(tag: string): Promise<{ store: Store; catalog: Catalog }> {
  const { store, catalog } = await fresh(tag);
  await commit(store, catalog, [
    {
      op: "create_table",
      name: "t",
      columns: [
        { name: "id", type: "int32", nullable: false },
        { name: "n", type: "int32" },
        { name: "d", type: "decimal(4,2)" },
        { name: "tags", type: "list", children: [{ name: "element", type: "int32" }] },
        {
          name: "st",
          type: "struct",
          children: [
            { name: "a", type: "timestamptz" },
            {
              name: "m",
              type: "map",
              children: [
                { name: "key", type: "varchar" },
                { name: "value", type: "float64" },
              ],
            },
          ],
        },
        { name: "s", type: "varchar" },
      ],
    },
  ]);
  return { store, catalog };
}

describe("inline_insert validates every value against its column", () => {
  it("refuses values that do not fit, naming the column and the row (and field) position", async () => {
    const { store, catalog } = await withTable("inline-bad");
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ n: "notanint" }, /rows\[1\]\.n: "notanint" is not a valid int32/],
      [{ n: 2 ** 63 }, /rows\[1\]\.n: .* int32/],
      [{ n: 1e308 }, /rows\[1\]\.n: .* int32/],
      [{ n: 2 ** 31 }, /rows\[1\]\.n: .*out of range/],
      [{ d: "99999.999" }, /rows\[1\]\.d: "99999.999" is not a valid decimal\(4,2\)/],
      [{ tags: [1, "x"] }, /rows\[1\]\.tags\[1\]: "x" is not a valid int32/],
      [{ tags: 5 }, /rows\[1\]\.tags: 5 is not a valid list/],
      [{ st: { a: "2026-13-01 00:00:00" } }, /rows\[1\]\.st\.a: .* timestamptz/],
      [{ st: { m: [{ key: "k", value: "x" }] } }, /rows\[1\]\.st\.m\[0\]\.value: "x" is not a valid float64/],
      [{ s: 5 }, /rows\[1\]\.s: 5 is not a valid varchar/],
    ];
    for (const [row, message] of bad) {
      const err = await catalog
        .commit({ verbs: [{ op: "inline_insert", table: T, rows: [{ id: 1 }, { id: 2, ...row }] } as Verb] })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err, JSON.stringify(row)).toBeInstanceOf(InvalidRequest);
      expect(String((err as Error).message)).toMatch(message);
    }
    const nulls = await catalog
      .commit({ verbs: [{ op: "inline_insert", table: T, rows: [{ n: 1 }] }] })
      .catch((e: unknown) => e);
    expect(nulls).toBeInstanceOf(Constraint);
    expect(String((nulls as Error).message)).toMatch(/rows\[0\]\.id: .*NOT NULL/);
    // Nothing was stored by any refused commit.
    expect(Object.values(await inlinedTablesAt(store.snapshot())).flatMap((t) => t.rows)).toEqual([]);
  });

  it("stores what DuckDB would read back: rounded decimals, canonical text, nested values", async () => {
    const { store, catalog } = await withTable("inline-good");
    await commit(store, catalog, [
      {
        op: "inline_insert",
        table: T,
        rows: [
          {
            id: "7",
            n: -5,
            d: 1.005,
            tags: [1, null, "3"],
            st: { a: "2026-12-01T10:30:00.1234567+02:00", m: { x: "NaN", y: 2.5 } },
            s: "é",
          },
        ],
      },
    ]);
    const tables = await inlinedTablesAt(store.snapshot());
    const rows = Object.values(tables).flatMap((t) => t.rows);
    expect(rows).toEqual([
      {
        row_id: 0,
        begin_snapshot: 2,
        end_snapshot: null,
        id: 7,
        n: -5,
        d: "1.01",
        tags: [1, null, 3],
        st: {
          a: "2026-12-01 08:30:00.123456+00",
          m: [
            { key: "x", value: "NaN" },
            { key: "y", value: 2.5 },
          ],
        },
        s: "é",
      },
    ]);
  });
});

describe("alter_column over inlined rows", () => {
  it("allows DuckLake's widenings over valid rows and refuses a narrowing or a row the new type cannot read", async () => {
    const { store, catalog } = await withTable("inline-alter");
    await commit(store, catalog, [
      { op: "inline_insert", table: T, rows: [{ id: 1, n: 2 ** 31 - 1, s: "not json" }] },
    ]);
    await commit(store, catalog, [{ op: "alter_column", table: T, column: "n", type: "int64" }]);
    const narrow = await catalog
      .commit({ verbs: [{ op: "alter_column", table: T, column: "n", type: "int32" }] })
      .catch((e: unknown) => e);
    expect(narrow).toBeInstanceOf(Unsupported);
    expect(String((narrow as Error).message)).toMatch(/cannot change from int64 to int32/);
    const sideways = await catalog
      .commit({ verbs: [{ op: "alter_column", table: T, column: "s", type: "int64" }] })
      .catch((e: unknown) => e);
    expect(sideways).toBeInstanceOf(Unsupported);
    const json = await catalog
      .commit({ verbs: [{ op: "alter_column", table: T, column: "s", type: "json" }] })
      .catch((e: unknown) => e);
    expect(json).toBeInstanceOf(InvalidRequest);
    expect(String((json as Error).message)).toMatch(/inlined row 0\.s: "not json" is not a valid json/);
    // Any other type reads as json.
    await commit(store, catalog, [{ op: "alter_column", table: T, column: "n", type: "json" }]);
  });
});

describe("inlined rows are bounded", () => {
  it(`one commit inlines at most ${MAX_INLINED_ROWS_PER_COMMIT} rows`, async () => {
    const { catalog } = await withTable("inline-commit-cap");
    const rows = Array.from({ length: MAX_INLINED_ROWS_PER_COMMIT + 1 }, (_, i) => ({ id: i }));
    const err = await catalog
      .commit({ verbs: [{ op: "inline_insert", table: T, rows }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Constraint);
    expect(String((err as Error).message)).toMatch(/at most 10000 rows/);
    // Split across two verbs of one commit: still one commit's budget.
    const half = rows.slice(0, MAX_INLINED_ROWS_PER_COMMIT / 2 + 1);
    const split = await catalog
      .commit({
        verbs: [
          { op: "inline_insert", table: T, rows: half },
          { op: "inline_insert", table: T, rows: half },
        ],
      })
      .catch((e: unknown) => e);
    expect(split).toBeInstanceOf(Constraint);
  });

  it(`a table holds at most ${MAX_INLINED_ROWS_PER_TABLE} inlined rows until they are flushed`, async () => {
    const { store, catalog } = await withTable("inline-table-cap");
    const rows = Array.from({ length: MAX_INLINED_ROWS_PER_COMMIT }, (_, i) => ({ id: i }));
    for (let held = 0; held < MAX_INLINED_ROWS_PER_TABLE; held += rows.length) {
      await commit(store, catalog, [{ op: "inline_insert", table: T, rows }]);
    }
    const err = await catalog
      .commit({ verbs: [{ op: "inline_insert", table: T, rows: [{ id: 0 }] }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Constraint);
    expect(String((err as Error).message)).toMatch(/above the limit of 100000; flush them/);
    // Flushing frees the budget.
    await commit(store, catalog, [
      {
        op: "flush_inlined",
        table: T,
        throughRowId: MAX_INLINED_ROWS_PER_TABLE - 1,
        file: { path: "flushed.parquet", recordCount: MAX_INLINED_ROWS_PER_TABLE, fileSizeBytes: 1 },
      },
    ]);
    await commit(store, catalog, [{ op: "inline_insert", table: T, rows: [{ id: 0 }] }]);
  }, 120_000);

  it(`one commit stages at most ${MAX_INLINED_DELETES_PER_COMMIT} inlined deletes`, async () => {
    const { store, catalog } = await withTable("inline-delete-cap");
    await commit(store, catalog, [
      {
        op: "register_data_file",
        table: T,
        file: { path: "big.parquet", recordCount: MAX_INLINED_DELETES_PER_COMMIT + 1, fileSizeBytes: 1 },
      },
    ]);
    const positions = Array.from({ length: MAX_INLINED_DELETES_PER_COMMIT + 1 }, (_, i) => i);
    const err = await catalog
      .commit({ verbs: [{ op: "inline_delete", table: T, fileDeletes: [{ dataFileId: 0, positions }] }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Constraint);
    expect(String((err as Error).message)).toMatch(/at most 10000 inlined deletes/);
  });

  it("min/max over many rows use loops (a spread throws RangeError near 130k arguments)", () => {
    const xs = Array.from({ length: 500_000 }, (_, i) => (i * 7919) % 500_000);
    expect(minOf(xs)).toBe(0);
    expect(maxOf(xs)).toBe(499_999);
  });
});
