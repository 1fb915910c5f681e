"""Loads a dump of the `ducklake_*` route into a stock DuckLake catalog and checks its time travel.

test/worker/ducklake-dump.test.ts (run by `npm test`) dumps every table of a lake (the 28 DuckLake tables
and each per-table inlined data/delete table) through GET /v1/lakes/{lake}/ducklake/{table}?format=csv,
page by page, into test-output/ducklake-dump/, with the lake's Parquet file and the rows each user table
must show at every snapshot. This script, with the pinned duckdb==1.5.5 + duckdb-extension-ducklake==1.5.5:

1. creates a fresh stock DuckLake catalog in a DuckDB file (which declares the 28 tables),
2. replaces their rows with the dump (read_csv with each table's own column types), creates the inlined
   tables with the DuckDB types the route reported, points data_path at the local copy of the data,
3. attaches it as a DuckLake again and, for every snapshot, compares
   `SELECT ... FROM t AT (VERSION => s)` (values cast to VARCHAR) with the expected rows.

    python3 tools/ducklake-dump-check.py [dump-dir]    # exit 1 on any difference or a missing dump

A dump-dir without expected.json whose subfolders hold dumps (test-output/expiry-dump/seed-N-before, …)
checks each of them.
"""
import glob
import json
import os
import shutil
import sys
import tempfile

import duckdb
import duckdb_extension_ducklake

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "test-output", "ducklake-dump")
EXT = glob.glob(
    os.path.join(os.path.dirname(duckdb_extension_ducklake.__file__), "extensions", f"v{duckdb.__version__}", "ducklake.duckdb_extension")
)[0]
CONFIG = {"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false", "autoload_known_extensions": "false"}


def q(name):
    return '"' + name.replace('"', '""') + '"'


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def read_csv(path, cols):
    spec = "{" + ", ".join(f"{sql_str(n)}: {sql_str(t)}" for n, t in cols) + "}"
    # A quoted "" is an empty string, an empty field NULL (what the route writes).
    return f"read_csv({sql_str(path)}, header = true, columns = {spec}, allow_quoted_nulls = false, quote = '\"', escape = '\"')"


def main():
    if os.path.exists(os.path.join(DUMP, "expected.json")):
        sys.exit(1 if check(DUMP) else 0)
    dumps = sorted(d for d in glob.glob(os.path.join(DUMP, "*")) if os.path.exists(os.path.join(d, "expected.json")))
    if not dumps:
        print(f"missing dump: {DUMP} (run: npx vitest run test/worker/ducklake-dump.test.ts)")
        sys.exit(1)
    failed = [d for d in dumps if check(d)]
    print(f"{'FAIL' if failed else 'ok'}: {len(dumps) - len(failed)}/{len(dumps)} dumps under {DUMP}")
    sys.exit(1 if failed else 0)


def check(DUMP):
    """Loads one dump and compares; answers True when anything differs."""
    print(f"{os.path.basename(os.path.normpath(DUMP))}:")
    types = json.load(open(os.path.join(DUMP, "tables.json")))
    expected = json.load(open(os.path.join(DUMP, "expected.json")))
    work = tempfile.mkdtemp()
    data = os.path.join(work, "data") + "/"
    shutil.copytree(os.path.join(DUMP, "data"), data)
    meta = os.path.join(work, "meta.ducklake")
    con = duckdb.connect(config=CONFIG)
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"LOAD {sql_str(EXT)}")
    con.execute(f"ATTACH {sql_str('ducklake:' + meta)} AS lake (DATA_PATH {sql_str(data)})")
    con.execute("DETACH lake")
    con.execute(f"ATTACH {sql_str(meta)} AS meta")
    for name, col_types in types.items():
        path = os.path.join(DUMP, "tables", f"{name}.csv")
        if col_types is None:
            cols = con.execute(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = 'meta' AND table_name = ? ORDER BY column_index",
                [name],
            ).fetchall()
            if not cols:
                print(f"stock DuckLake has no table {name}")
                sys.exit(1)
            con.execute(f"DELETE FROM meta.{q(name)}")
        else:
            header = open(path).readline().strip().split(",")
            cols = list(zip(header, col_types))
            con.execute(f"CREATE TABLE meta.{q(name)} (" + ", ".join(f"{q(n)} {t}" for n, t in cols) + ")")
        con.execute(f"INSERT INTO meta.{q(name)} BY NAME SELECT * FROM {read_csv(path, cols)}")
    con.execute("UPDATE meta.ducklake_metadata SET value = ? WHERE key = 'data_path' AND scope IS NULL", [data])
    con.execute("DETACH meta")
    con.execute(f"ATTACH {sql_str('ducklake:' + meta)} AS lake")
    problems = []
    checked = 0
    for snap, tables in sorted(expected.items(), key=lambda kv: int(kv[0])):
        for t in tables:
            cols = ", ".join(f"{q(c)}::VARCHAR" for c in t["columns"])
            try:
                got = con.execute(f"SELECT {cols} FROM lake.{t['table']} AT (VERSION => {int(snap)})").fetchall()
            except duckdb.Error as e:
                problems.append(f"snapshot {snap} {t['table']}: {str(e).splitlines()[0]}")
                continue
            key = lambda r: int(r[0])
            got = sorted([list(r) for r in got], key=key)
            want = sorted(t["rows"], key=key)
            checked += 1
            if got != want:
                problems.append(f"snapshot {snap} {t['table']}:\n  stock  {got}\n  wanted {want}")
    for p in problems:
        print(p)
    print(f"{'FAIL' if problems else 'ok'}: {checked} table states compared across {len(expected)} snapshots, {len(types)} tables loaded")
    return bool(problems)


if __name__ == "__main__":
    main()
