"""A stock DuckDB 1.5.5 Quack server with `ducklake` loaded (so `ducklake_commit` exists there), holding the
DuckLake metadata catalog in memory: the oracle the suite runner starts fresh for each test file, as
upstream's scripts/run_quack_tests.py does. It serves until stdin closes or the process is killed.

    python3 stock_server.py PORT TOKEN
"""
import glob, os, sys

import duckdb
import duckdb_extension_ducklake, duckdb_extension_httpfs, duckdb_extension_quack


def ext(mod, name):
    return glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", f"v{duckdb.__version__}",
                                  f"{name}.duckdb_extension"))[0]


port, token = int(sys.argv[1]), sys.argv[2]
con = duckdb.connect(config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false",
                             "autoload_known_extensions": "false"})
for mod, name in ((duckdb_extension_httpfs, "httpfs"), (duckdb_extension_quack, "quack"),
                  (duckdb_extension_ducklake, "ducklake")):
    con.execute(f"LOAD '{ext(mod, name)}'")
con.execute(f"CALL quack_serve('quack:127.0.0.1:{port}', token => '{token}')")
print("serving", port, flush=True)
sys.stdin.read()
