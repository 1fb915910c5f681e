"""Installs the pinned stock DuckDB extensions (ducklake, quack, httpfs, sqlite_scanner) from the PyPI wheels of
tools/requirements.txt into DuckDB's own extension directory, offline, so that a plain
`LOAD ducklake; LOAD quack; LOAD httpfs;` (and `LOAD sqlite_scanner`, which reading the CLI's `export`
needs) works in DuckDB 1.5.5 (Python, or the CLI of the same version
sharing ~/.duckdb). Same files the conformance suite loads (test/quack/run.py); nothing is downloaded.

    pip install -r tools/requirements.txt && python3 tools/duckdb-extensions.py
"""
import glob, os, sys

import duckdb
import duckdb_extension_ducklake, duckdb_extension_httpfs, duckdb_extension_quack, duckdb_extension_sqlite_scanner

WHEELS = {"ducklake": duckdb_extension_ducklake, "quack": duckdb_extension_quack, "httpfs": duckdb_extension_httpfs,
          "sqlite_scanner": duckdb_extension_sqlite_scanner}


def main():
    con = duckdb.connect()
    for name, mod in WHEELS.items():
        found = glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", f"v{duckdb.__version__}",
                                       f"{name}.duckdb_extension"))
        if not found:
            sys.exit(f"the {name} wheel holds no extension for DuckDB {duckdb.__version__}: "
                     "pip install -r tools/requirements.txt")
        con.execute(f"INSTALL '{found[0]}'")
    check = duckdb.connect()
    for name in WHEELS:
        check.execute(f"LOAD {name}")
    print(f"installed and loaded {', '.join(WHEELS)} for DuckDB {duckdb.__version__}")


if __name__ == "__main__":
    main()
