"""Golden catalog states from a stock DuckLake, for row-faithfulness tests of catalog/.

Runs each scenario's SQL through real DuckDB + DuckLake (PyPI wheels duckdb==1.5.5 and
duckdb-extension-ducklake==1.5.5, installed by .ci/run) on a DuckDB-file metadata store, then dumps all
28 ducklake_* tables (and every ducklake_inlined_data_* / ducklake_inlined_delete_* table) with their exact
column names and types. The final state is `tables`; `steps[i]` holds every table's rows right after
statement i (the metadata file is re-read between statements, so each step is what DuckLake had committed).
Values that DuckLake randomises (uuids, times, generated file names, byte sizes that depend on the Parquet
writer, created_by, data_path) are normalised so the output is stable; everything else is kept verbatim.

    python3 tools/ducklake-golden.py            # rewrite test/fixtures/ducklake/*.json
    python3 tools/ducklake-golden.py --check    # exit 1 if the committed goldens differ (CI)
"""
import json
import os
import re
import sys
import tempfile

import duckdb
import duckdb_extension_ducklake

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "ducklake")
EXT = os.path.join(
    os.path.dirname(duckdb_extension_ducklake.__file__), "extensions", f"v{duckdb.__version__}", "ducklake.duckdb_extension"
)

# Each scenario is a list of statements run against the attached lake `lake`, one transaction each.
SCENARIOS = {
    "fresh": [],
    "ddl": [
        "CREATE SCHEMA lake.s1",
        "CREATE TABLE lake.s1.orders (id BIGINT, amount DECIMAL(10,2), tags VARCHAR[], addr STRUCT(city VARCHAR, zip INTEGER))",
        "CREATE VIEW lake.s1.big AS SELECT id FROM lake.s1.orders WHERE amount > 10",
        "COMMENT ON TABLE lake.s1.orders IS 'customer orders'",
        "COMMENT ON COLUMN lake.s1.orders.id IS 'order id'",
        "ALTER TABLE lake.s1.orders ADD COLUMN note VARCHAR DEFAULT 'none'",
        "ALTER TABLE lake.s1.orders RENAME COLUMN note TO memo",
        "ALTER TABLE lake.s1.orders ALTER COLUMN memo SET DEFAULT 'n/a'",
        "ALTER TABLE lake.s1.orders DROP COLUMN tags",
        "ALTER TABLE lake.s1.orders RENAME TO orders2",
        "DROP VIEW lake.s1.big",
        "CREATE TABLE lake.main.doomed (x INTEGER)",
        "DROP TABLE lake.main.doomed",
    ],
    "data": [
        "CALL lake.set_option('data_inlining_row_limit', 0)",
        "CREATE TABLE lake.main.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.main.t VALUES (1, 'a'), (2, 'b'), (3, NULL)",
        "INSERT INTO lake.main.t VALUES (4, 'd'), (5, 'e')",
        "DELETE FROM lake.main.t WHERE id = 2",
    ],
    "inlined": [
        "CREATE TABLE lake.main.small (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.main.small VALUES (1, 'a'), (2, 'b')",
        "DELETE FROM lake.main.small WHERE id = 1",
    ],
    "partitioned": [
        "CALL lake.set_option('data_inlining_row_limit', 0)",
        "CREATE TABLE lake.main.events (day DATE, kind VARCHAR, n INTEGER)",
        "ALTER TABLE lake.main.events SET PARTITIONED BY (kind)",
        "INSERT INTO lake.main.events VALUES ('2026-01-01', 'a', 1), ('2026-01-02', 'b', 2)",
        "ALTER TABLE lake.main.events RESET PARTITIONED BY",
    ],
    # Every DuckLake type spelling, nested fields, and each kind of column ALTER (inlining on, so the
    # inlined-data table rotation shows), sort keys, column comments, drops.
    "types": [
        "CREATE SCHEMA lake.s2",
        "CREATE TABLE lake.s2.n (id INTEGER NOT NULL, m MAP(VARCHAR, INTEGER), ls STRUCT(a INTEGER, b VARCHAR[])[], "
        "ts TIMESTAMP, u UUID, d DOUBLE, f FLOAT, b BOOLEAN, sm SMALLINT, ti TINYINT, ub UBIGINT, h HUGEINT, "
        "bl BLOB, j JSON, tz TIMESTAMPTZ, iv INTERVAL, tm TIME, dt DATE)",
        "ALTER TABLE lake.s2.n ALTER COLUMN sm TYPE INTEGER",
        "ALTER TABLE lake.s2.n ALTER COLUMN id DROP NOT NULL",
        "ALTER TABLE lake.s2.n ALTER COLUMN d DROP DEFAULT",
        "ALTER TABLE lake.s2.n ADD COLUMN st STRUCT(x INTEGER)",
        "ALTER TABLE lake.s2.n ADD COLUMN st.y VARCHAR",
        "ALTER TABLE lake.s2.n DROP COLUMN st.x",
        "ALTER TABLE lake.s2.n SET SORTED BY (id DESC NULLS FIRST, ts)",
        "ALTER TABLE lake.s2.n RESET SORTED BY",
        "ALTER TABLE lake.s2.n ADD COLUMN e INTEGER DEFAULT 7",
        "COMMENT ON COLUMN lake.s2.n.m IS 'a map'",
        "COMMENT ON COLUMN lake.s2.n.m IS NULL",
        "DROP TABLE lake.s2.n",
        "DROP SCHEMA lake.s2",
    ],
    "views_macros": [
        "CREATE VIEW lake.main.v1 (a, b) AS SELECT 1, 2",
        "ALTER VIEW lake.main.v1 RENAME TO v2",
        "COMMENT ON VIEW lake.main.v2 IS 'view note'",
        "CREATE MACRO lake.main.add1(a, b := 1) AS a + b",
        "CREATE MACRO lake.main.tm(x) AS TABLE SELECT x AS y",
        "DROP MACRO lake.main.add1",
        "DROP MACRO TABLE lake.main.tm",
        "DROP VIEW lake.main.v2",
    ],
    # Inlined rows deleted in two snapshots, a Parquet file with inlined deletes, SET NOT NULL, then a flush
    # that writes the rows to a file and merges both kinds of inlined delete into delete files.
    "flush": [
        "CREATE TABLE lake.main.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.main.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "DELETE FROM lake.main.t WHERE id = 1",
        "DELETE FROM lake.main.t WHERE id = 3",
        "INSERT INTO lake.main.t SELECT i, 'x' || i FROM range(10, 30) r(i)",
        "DELETE FROM lake.main.t WHERE id = 12",
        "DELETE FROM lake.main.t WHERE id = 15",
        "ALTER TABLE lake.main.t ALTER COLUMN id SET NOT NULL",
        "CALL ducklake_flush_inlined_data('lake')",
    ],
    # Inlined deletes and a delete file on one Parquet file coexist (the delete file does not absorb them);
    # a flush with no inlined rows merges them with the live delete file into a new one.
    "deletes": [
        "CREATE TABLE lake.main.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.main.t SELECT i, 'x' || i FROM range(10, 40) r(i)",
        "DELETE FROM lake.main.t WHERE id = 12",
        "DELETE FROM lake.main.t WHERE id >= 20",
        "DELETE FROM lake.main.t WHERE id = 13",
        "CALL ducklake_flush_inlined_data('lake')",
    ],
    # Snapshot expiry (maintenance job 4): a dropped table with a data and a delete file, and a live table
    # with both; every snapshot before the drop expires. Then the cleanup of what it scheduled (job 5).
    "expire": [
        "CALL lake.set_option('data_inlining_row_limit', 0)",
        "CREATE TABLE lake.main.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.main.t VALUES (1, 'a'), (2, 'b'), (3, NULL)",
        "INSERT INTO lake.main.t VALUES (4, 'd'), (5, 'e')",
        "DELETE FROM lake.main.t WHERE id = 2",
        "CREATE TABLE lake.main.gone (x INTEGER)",
        "INSERT INTO lake.main.gone VALUES (7), (8)",
        "DELETE FROM lake.main.gone WHERE x = 8",
        "DROP TABLE lake.main.gone",
        "INSERT INTO lake.main.t VALUES (6, 'f')",
        "CALL ducklake_expire_snapshots('lake', versions => [0, 1, 2, 3, 4, 5, 6, 7])",
        "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)",
    ],
    # Merge adjacent files: the file with a delete is skipped; the two adjacent ones (row ids 3..5) become
    # one backdated file with only `_ducklake_internal_snapshot_id`, the inputs removed and scheduled.
    "merge": [
        "CALL lake.set_option('data_inlining_row_limit', 0)",
        "CREATE TABLE lake.main.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.main.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO lake.main.t VALUES (4, 'd'), (5, 'e')",
        "DELETE FROM lake.main.t WHERE id = 2",
        "INSERT INTO lake.main.t VALUES (6, 'f')",
        "CALL ducklake_merge_adjacent_files('lake')",
    ],
    # Merge across a gap (the file with a delete sits between): row_id_start NULL, row ids in the file.
    "merge_gap": [
        "CALL lake.set_option('data_inlining_row_limit', 0)",
        "CREATE TABLE lake.main.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.main.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO lake.main.t VALUES (4, 'd'), (5, 'e')",
        "DELETE FROM lake.main.t WHERE id = 5",
        "INSERT INTO lake.main.t VALUES (6, 'f')",
        "INSERT INTO lake.main.t VALUES (7, 'g')",
        "CALL ducklake_merge_adjacent_files('lake')",
    ],
    # Rewrite files at least half deleted: both become one file begun at the rewrite (row ids in the file),
    # the inputs and their delete files end there, table stats shrink and column stats are recomputed.
    "rewrite": [
        "CALL lake.set_option('data_inlining_row_limit', 0)",
        "CREATE TABLE lake.main.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.main.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO lake.main.t VALUES (4, 'd'), (5, 'e')",
        # One DELETE per file: a DELETE across files numbers their delete files in thread order.
        "DELETE FROM lake.main.t WHERE id = 2 OR id = 1",
        "DELETE FROM lake.main.t WHERE id = 5",
        "INSERT INTO lake.main.t VALUES (6, 'f')",
        "CALL ducklake_rewrite_data_files('lake', delete_threshold => 0.5)",
    ],
}

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
UUID_IN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
FILE_TABLES = ("ducklake_data_file", "ducklake_delete_file", "ducklake_files_scheduled_for_deletion")
# Sizes that depend on the Parquet writer's bytes. A zero is kept: it says "no file bytes" (inlined data).
BYTES = {
    "ducklake_data_file": ("file_size_bytes", "footer_size"),
    "ducklake_delete_file": ("file_size_bytes", "footer_size"),
    "ducklake_file_column_stats": ("column_size_bytes",),
    "ducklake_table_stats": ("file_size_bytes",),
}


def normalise(table, column, value):
    if value is None:
        return None
    if column.endswith("_uuid"):
        return "<uuid>"
    if column in ("snapshot_time", "schedule_start"):
        return "<time>"
    if table in FILE_TABLES and column == "path":
        return UUID_IN.sub("<uuid>", str(value))
    if column in BYTES.get(table, ()) and value != 0:
        return "<bytes>"
    if table == "ducklake_metadata" and column == "value" and isinstance(value, str):
        if value.startswith("DuckDB "):
            return "<created_by>"
        if value.startswith(tempfile.gettempdir()):
            return "<data_path>"
    if isinstance(value, str) and UUID.match(value):
        return "<uuid>"
    if isinstance(value, (int, float, str, bool)):
        return value
    return str(value)


def dump(con, db):
    """Every table of the attached metadata database `db`: columns (name, DuckDB type) and sorted rows."""
    names = [
        r[0]
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY table_name", [db]
        ).fetchall()
    ]
    tables = {}
    for t in names:
        cols = con.execute(
            "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = ? AND table_name = ? ORDER BY column_index",
            [db, t],
        ).fetchall()
        # Times and uuids come back as text: no tz or uuid objects, and no pytz dependency.
        select = ", ".join(
            f'CAST("{c}" AS VARCHAR)' if ty in ("TIMESTAMP WITH TIME ZONE", "UUID") else f'"{c}"' for c, ty in cols
        )
        rows = con.execute(f"SELECT {select} FROM {db}.{t} ORDER BY ALL").fetchall()
        tables[t] = {
            "columns": [[c, ty] for c, ty in cols],
            "rows": [[normalise(t, c, v) for (c, _), v in zip(cols, row)] for row in rows],
        }
    return tables


def run(name, statements):
    with tempfile.TemporaryDirectory() as tmp:
        con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
        con.execute(f"LOAD '{EXT}'")
        attach = f"ATTACH 'ducklake:{tmp}/meta.ducklake' AS lake (DATA_PATH '{tmp}/data/')"
        con.execute(attach)
        steps = []
        for sql in statements:
            con.execute(sql)
            # DuckLake hides its metadata database; re-open the file read-only to see what it committed.
            con.execute("DETACH lake")
            con.execute(f"ATTACH '{tmp}/meta.ducklake' AS m (READ_ONLY)")
            state = dump(con, "m")
            con.execute("DETACH m")
            con.execute(attach)
            steps.append({"statement": sql, "tables": {t: v["rows"] for t, v in state.items()}})
        con.execute("DETACH lake")
        con.execute(f"ATTACH '{tmp}/meta.ducklake' AS m (READ_ONLY)")
        tables = dump(con, "m")
        con.close()
    return {
        "scenario": name,
        "duckdb": duckdb.__version__,
        "statements": statements,
        "tables": tables,
        "steps": steps,
    }


WIDTH = 110


def _flat(value):
    if isinstance(value, list):
        return "[" + ", ".join(_flat(v) for v in value) + "]"
    return json.dumps(value)


def _format(value, indent, used, trailing):
    """Biome's JSON layout: objects always open; an array on one line when it fits in WIDTH, else one
    element per line. `used` is what precedes the value on its line, `trailing` what follows it."""
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = list(value.items())
        lines = []
        for i, (k, v) in enumerate(items):
            key = json.dumps(k) + ": "
            comma = "," if i < len(items) - 1 else ""
            lines.append(pad + key + _format(v, indent + 2, len(pad) + len(key), len(comma)) + comma)
        return "{\n" + "\n".join(lines) + "\n" + " " * indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        flat = _flat(value)
        if not any(isinstance(v, dict) for v in value) and used + len(flat) + trailing <= WIDTH:
            return flat
        lines = []
        for i, v in enumerate(value):
            comma = "," if i < len(value) - 1 else ""
            lines.append(pad + _format(v, indent + 2, len(pad), len(comma)) + comma)
        return "[\n" + "\n".join(lines) + "\n" + " " * indent + "]"
    return json.dumps(value)


def to_text(doc):
    """JSON exactly as the repository's formatter (Biome) lays it out, so `biome check .` stays clean and
    a golden diff reads row by row."""
    return _format(doc, 0, 0, 0) + "\n"


def main():
    check = "--check" in sys.argv
    os.makedirs(OUT, exist_ok=True)
    stale = []
    for name, statements in SCENARIOS.items():
        text = to_text(run(name, statements))
        path = os.path.join(OUT, f"{name}.json")
        if check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                stale.append(path)
        else:
            with open(path, "w") as f:
                f.write(text)
            print(f"wrote {path}")
    if stale:
        print("goldens differ from stock DuckLake; rerun tools/ducklake-golden.py:", *stale, sep="\n  ")
        sys.exit(1)
    if check:
        print(f"{len(SCENARIOS)} DuckLake goldens match stock DuckLake {duckdb.__version__}")


if __name__ == "__main__":
    main()
