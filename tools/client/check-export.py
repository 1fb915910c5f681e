"""Checks a `ducklake-edge export` file with stock DuckDB 1.5.5 (pinned wheels, loaded offline):

1. its DuckLake tables have exactly the DDL stock DuckLake writes to a fresh SQLite catalog;
2. it attaches read-only and, at every snapshot named in the expectation, a table holds exactly the
   expected rows (the union of the listed Parquet files read directly and the listed literal rows).

    python3 tools/client/check-export.py <export.sqlite> <expect.json>

expect.json: {"table": "main.orders", "columns": ["id", ...],
              "snapshots": {"2": {"parquet": ["test/fixtures/orders-1.parquet"], "rows": [[4, "7.50", "eu"]]}}}
Prints one line per check and exits 1 on any mismatch.
"""
import json, os, sqlite3, sys, tempfile

import glob
import duckdb
import duckdb_extension_ducklake, duckdb_extension_sqlite_scanner


def ext(mod, name):
    return glob.glob(os.path.dirname(mod.__file__) + f"/extensions/v{duckdb.__version__}/{name}.duckdb_extension")[0]


def connect():
    con = duckdb.connect(":memory:", config={"allow_unsigned_extensions": "true",
                                            "autoinstall_known_extensions": "false",
                                            "autoload_known_extensions": "false"})
    con.execute(f"LOAD '{ext(duckdb_extension_ducklake, 'ducklake')}'")
    con.execute(f"LOAD '{ext(duckdb_extension_sqlite_scanner, 'sqlite_scanner')}'")
    return con


def stock_ddl():
    d = tempfile.mkdtemp()
    con = connect()
    con.execute(f"ATTACH 'ducklake:sqlite:{d}/m.sqlite' AS l (DATA_PATH '{d}/data/')")
    con.close()
    db = sqlite3.connect(f"{d}/m.sqlite")
    return dict(db.execute("select name, sql from sqlite_master where type='table'").fetchall())


def main():
    path, expect_path = sys.argv[1], sys.argv[2]
    expect = json.load(open(expect_path))
    failures = 0
    got = dict(sqlite3.connect(path).execute("select name, sql from sqlite_master where type='table'").fetchall())
    for name, sql in stock_ddl().items():
        if got.get(name) != sql:
            print(f"FAIL ddl {name}: {got.get(name)!r} != stock {sql!r}")
            failures += 1
    print(f"ddl: {len(stock_ddl())} stock tables compared")
    con = connect()
    con.execute(f"ATTACH 'ducklake:sqlite:{path}' AS lake (READ_ONLY)")
    age = con.execute("SELECT abs(epoch(now()) - epoch(max(snapshot_time))) FROM ducklake_snapshots('lake')").fetchone()[0]
    if age > 86400:
        print(f"FAIL snapshot_time: the newest snapshot is {age} s from now")
        failures += 1
    else:
        print("ok snapshot times are recent")
    cols = ", ".join(expect["columns"])
    for snap, src in sorted(expect["snapshots"].items(), key=lambda kv: int(kv[0])):
        rows = con.execute(
            f"SELECT {cols} FROM lake.{expect['table']} AT (VERSION => {int(snap)}) ORDER BY ALL").fetchall()
        want = []
        for f in src.get("parquet", []):
            want += con.execute(f"SELECT {cols} FROM read_parquet('{f}')").fetchall()
        lit = src.get("rows", [])
        if lit:
            values = ", ".join("(" + ", ".join(repr(v) if v is not None else "NULL" for v in r) + ")" for r in lit)
            want += con.execute(f"SELECT * FROM (VALUES {values})").fetchall()
        norm = lambda rs: sorted([tuple(str(v) for v in r) for r in rs])
        if norm(rows) != norm(want):
            print(f"FAIL snapshot {snap}: {norm(rows)} != {norm(want)}")
            failures += 1
        else:
            print(f"ok snapshot {snap}: {len(rows)} rows")
    print("export check: " + ("ok" if not failures else f"{failures} mismatches"))
    sys.exit(1 if failures else 0)


main()
