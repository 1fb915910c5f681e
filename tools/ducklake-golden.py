"""Golden catalog states from a stock DuckLake, for row-faithfulness tests of catalog/.

Runs each scenario's SQL through real DuckDB + DuckLake (PyPI wheels duckdb==1.5.5 and
duckdb-extension-ducklake==1.5.5, installed by .ci/run) on a DuckDB-file metadata store, then dumps all
28 ducklake_* tables with their exact column names and types. Values that DuckLake randomises (uuids,
times, generated file names) are normalised so the output is stable.

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
}

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def normalise(table, column, value):
    if value is None:
        return None
    if column.endswith("_uuid"):
        return "<uuid>"
    if column in ("snapshot_time", "schedule_start"):
        return "<time>"
    if table in ("ducklake_data_file", "ducklake_delete_file") and column == "path":
        return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", str(value))
    if table in ("ducklake_data_file", "ducklake_delete_file") and column in ("file_size_bytes", "footer_size"):
        return "<bytes>"
    if table == "ducklake_file_column_stats" and column == "column_size_bytes":
        return "<bytes>"
    if table == "ducklake_table_stats" and column == "file_size_bytes":
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


def run(name, statements):
    with tempfile.TemporaryDirectory() as tmp:
        con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
        con.execute(f"LOAD '{EXT}'")
        con.execute(f"ATTACH 'ducklake:{tmp}/meta.ducklake' AS lake (DATA_PATH '{tmp}/data/')")
        for sql in statements:
            con.execute(sql)
        con.execute("DETACH lake")
        con.close()
        meta = duckdb.connect()
        meta.execute(f"ATTACH '{tmp}/meta.ducklake' AS m (READ_ONLY)")
        names = [
            r[0]
            for r in meta.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = 'm' ORDER BY table_name"
            ).fetchall()
        ]
        tables = {}
        for t in names:
            cols = meta.execute(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = 'm' AND table_name = ? ORDER BY column_index",
                [t],
            ).fetchall()
            # Times and uuids come back as text: no tz or uuid objects, and no pytz dependency.
            select = ", ".join(
                f'CAST("{c}" AS VARCHAR)' if ty in ("TIMESTAMP WITH TIME ZONE", "UUID") else f'"{c}"' for c, ty in cols
            )
            rows = meta.execute(f"SELECT {select} FROM m.{t} ORDER BY ALL").fetchall()
            tables[t] = {
                "columns": [[c, ty] for c, ty in cols],
                "rows": [[normalise(t, c, v) for (c, _), v in zip(cols, row)] for row in rows],
            }
        meta.close()
    return {
        "scenario": name,
        "duckdb": duckdb.__version__,
        "statements": statements,
        "tables": tables,
    }


def main():
    check = "--check" in sys.argv
    os.makedirs(OUT, exist_ok=True)
    stale = []
    for name, statements in SCENARIOS.items():
        text = json.dumps(run(name, statements), indent=1, sort_keys=False) + "\n"
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
