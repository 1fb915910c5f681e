#!/usr/bin/env python3
"""Captures DuckLake 1.5.5's client-side commit batches over Quack, with stock's resulting rows.

Runs stock DuckDB 1.5.5 as a Quack server (this script in `--serve` mode, on 127.0.0.1, port 9240 by
default) and a stock DuckDB + DuckLake client against it, one fresh lake per scenario. For every step it records each
request the client sent that holds a write statement (in order), and, after the step, every
`ducklake_*` table and every inlined data/delete table of the server's metadata database as rows.
Writes test/fixtures/quack/writes/<scenario>.json (one file per scenario, so none nears biome's 1 MiB
limit), which test/support/quack-writes.ts loads and test/catalog/sql/writes.test.ts replays through the
writer's sqlWrite and compares row by row. A scenario the loader does not import is refused before
capturing.

    python3 -m pip install -r tools/requirements-quack.txt
    python3 tools/quack-write-capture.py [--check] [--port 9240] [--only SCENARIO ...]

--check re-captures and compares with the committed fixture (ids, SQL shapes and rows; values DuckDB
mints freshly — UUIDs, file names, times, the data path — are compared by shape only).
"""
import argparse, glob, json, os, re, shutil, subprocess, sys, tempfile

import duckdb
import duckdb_extension_ducklake, duckdb_extension_httpfs, duckdb_extension_quack


def ext(mod, name):
    return glob.glob(os.path.dirname(mod.__file__) + f"/extensions/v{duckdb.__version__}/{name}.duckdb_extension")[0]


EXT = {"ducklake": ext(duckdb_extension_ducklake, "ducklake"), "quack": ext(duckdb_extension_quack, "quack"),
       "httpfs": ext(duckdb_extension_httpfs, "httpfs")}


def connect(path=":memory:", load=("ducklake",)):
    con = duckdb.connect(path, config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false",
                                       "autoload_known_extensions": "false"})
    for e in load:
        con.execute(f"LOAD '{EXT[e]}'")
    return con


if len(sys.argv) == 4 and sys.argv[1] == "--serve":
    # Server mode: a stock Quack server over META on PORT; stdin 'sql <query>' answers JSON, 'quit' ends.
    con = connect(sys.argv[2], load=("httpfs", "quack"))
    print(con.execute(f"CALL quack_serve('quack:127.0.0.1:{int(sys.argv[3])}', token => 'probe-token')").fetchall(),
          flush=True)
    print("serving", flush=True)
    for line in sys.stdin:
        cmd = line.strip().split(" ", 1)
        if cmd[0] == "sql":
            try:
                print(json.dumps(con.execute(cmd[1]).fetchall(), default=str), flush=True)
            except Exception as e:
                print("ERR", e, flush=True)
        elif cmd[0] == "quit":
            break
    sys.exit(0)

ap = argparse.ArgumentParser()
ap.add_argument("--check", action="store_true")
ap.add_argument("--port", type=int, default=9240)
ap.add_argument("--only", action="append",
                help="capture only these scenarios and replace them in the committed fixture (the rest kept)")
args = ap.parse_args()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "test/fixtures/quack/writes")
LOADER = os.path.join(ROOT, "test/support/quack-writes.ts")


def scenario_file(name):
    return os.path.join(OUT_DIR, f"{name}.json")


def committed():
    """The committed capture as one document: {"duckdb": version, "scenarios": {name: scenario}}."""
    doc = {"duckdb": None, "scenarios": {}}
    for path in sorted(glob.glob(os.path.join(OUT_DIR, "*.json"))):
        with open(path) as f:
            sc = json.load(f)
        version = sc.pop("duckdb")
        if doc["duckdb"] not in (None, version):
            sys.exit(f"{path} was captured with DuckDB {version}, the others with {doc['duckdb']}")
        doc["duckdb"] = version
        doc["scenarios"][os.path.basename(path)[: -len(".json")]] = sc
    return doc

T = "CREATE TABLE lake.s.t (id INTEGER, s VARCHAR, amount DECIMAL(10,2))"
BASE = [("create_schema", ["CREATE SCHEMA lake.s"]), ("create_table", [T])]
SCENARIOS = {
    "core": BASE + [
        ("insert_inlined", ["INSERT INTO lake.s.t VALUES (1, 'a', 1.50), (2, 'b', 2.50), (3, NULL, NULL)"]),
        ("insert_file", ["INSERT INTO lake.s.t SELECT i, 'x' || i, i / 100 FROM range(100, 2100) r(i)"]),
        ("insert_file_2", ["INSERT INTO lake.s.t SELECT i, 'y' || i, i / 100 FROM range(5000, 6000) r(i)"]),
        ("update_inlined", ["UPDATE lake.s.t SET s = 'u' WHERE id = 1"]),
        ("delete_inlined", ["DELETE FROM lake.s.t WHERE id = 2"]),
        ("update_file", ["UPDATE lake.s.t SET s = 'v' WHERE id = 150"]),
        ("delete_file", ["DELETE FROM lake.s.t WHERE id BETWEEN 200 AND 210"]),
        ("alter_add_column", ["ALTER TABLE lake.s.t ADD COLUMN note VARCHAR DEFAULT 'n'"]),
        ("insert_after_alter", ["INSERT INTO lake.s.t VALUES (7, 'g', 7.00, 'z')"]),
        ("create_table_2", ["CREATE TABLE lake.main.doomed (x INTEGER)", "INSERT INTO lake.main.doomed VALUES (1)"]),
        ("drop_table", ["DROP TABLE lake.main.doomed"]),
    ],
    "types": BASE + [
        ("create_typed", ["CREATE TABLE lake.s.ty (b BOOLEAN, i BIGINT, d DOUBLE, dt DATE, ts TIMESTAMP, "
                          "tz TIMESTAMPTZ, u UUID, bl BLOB, dc DECIMAL(18,3), hi HUGEINT, f FLOAT, v VARCHAR)"]),
        ("insert_typed", ["INSERT INTO lake.s.ty VALUES (true, -5, 1.5e10, DATE '2024-01-02', "
                          "TIMESTAMP '2024-01-02 03:04:05.123456', TIMESTAMPTZ '2024-01-02 03:04:05+00', "
                          "'01a2306c-6959-7768-90ea-009ba88b2458', '\\x01ab'::BLOB, 12.345, "
                          "170141183460469231731687303715884105727, 'nan'::FLOAT, 'semi;colon ''quoted'''), "
                          "(NULL, NULL, -0.25, NULL, NULL, NULL, NULL, NULL, -0.001, -1, 'inf'::FLOAT, NULL)"]),
    ],
    "nested": BASE + [
        ("create_nested", ["CREATE TABLE lake.s.n (l INTEGER[], st STRUCT(a INTEGER, b VARCHAR))"]),
        ("insert_nested", ["INSERT INTO lake.s.n VALUES ([1, 2], {'a': 1, 'b': 'x'})"]),
    ],
    "update_many": BASE + [
        ("insert_file", ["INSERT INTO lake.s.t SELECT i, 'x' || i, i / 100 FROM range(0, 2000) r(i)"]),
        ("update_many", ["UPDATE lake.s.t SET s = 'w' WHERE id BETWEEN 100 AND 1000"]),
        ("delete_many", ["DELETE FROM lake.s.t WHERE id BETWEEN 1500 AND 1600"]),
    ],
    "cleanup": BASE + [
        ("insert_file", ["INSERT INTO lake.s.t SELECT i, 'x' || i, i / 100 FROM range(0, 100) r(i)"]),
        ("insert_file_2", ["INSERT INTO lake.s.t SELECT i, 'y' || i, i / 100 FROM range(100, 200) r(i)"]),
        ("merge", ["CALL ducklake_merge_adjacent_files('lake')"]),
        ("cleanup", ["CALL ducklake_cleanup_old_files('lake', cleanup_all => true)"]),
    ],
    "view": BASE + [("create_view", ["CREATE VIEW lake.s.v AS SELECT id FROM lake.s.t"])],
    "macro": BASE + [("create_macro", ["CREATE MACRO lake.s.plus1(a) AS a + 1"])],
    "comment": BASE + [("comment", ["COMMENT ON TABLE lake.s.t IS 'hello'"]),
                       ("comment_again", ["COMMENT ON TABLE lake.s.t IS 'hello again'"]),
                       ("comment_column", ["COMMENT ON COLUMN lake.s.t.id IS 'the id'"])],
    "option": BASE + [("set_option", ["CALL lake.set_option('data_inlining_row_limit', 20)"]),
                      ("set_option_again", ["CALL lake.set_option('data_inlining_row_limit', 30)"]),
                      ("set_table_option", ["CALL lake.set_option('data_inlining_row_limit', 5, schema => 's', table_name => 't')"])],
    "partition": BASE + [("set_partitioned", ["ALTER TABLE lake.s.t SET PARTITIONED BY (id)"])],
    "alter": BASE + [("rename_column", ["ALTER TABLE lake.s.t RENAME COLUMN s TO s2"]),
                     ("drop_column", ["ALTER TABLE lake.s.t DROP COLUMN amount"]),
                     ("rename_table", ["ALTER TABLE lake.s.t RENAME TO t2"])],
    "drop_schema": BASE + [("drop_schema", ["DROP SCHEMA lake.s CASCADE"])],
    "flush": BASE + [
        ("insert_inlined", ["INSERT INTO lake.s.t VALUES (1, 'a', 1.50), (2, 'b', 2.50)"]),
        ("flush", ["CALL ducklake_flush_inlined_data('lake')"]),
    ],
    "maintenance": BASE + [
        ("insert_file", ["INSERT INTO lake.s.t SELECT i, 'x' || i, i / 100 FROM range(0, 100) r(i)"]),
        ("insert_file_2", ["INSERT INTO lake.s.t SELECT i, 'y' || i, i / 100 FROM range(100, 200) r(i)"]),
        ("merge", ["CALL ducklake_merge_adjacent_files('lake')"]),
        ("expire", ["CALL ducklake_expire_snapshots('lake', older_than => now())"]),
        ("cleanup", ["CALL ducklake_cleanup_old_files('lake', cleanup_all => true)"]),
    ],
    # ducklake_rewrite_data_files (docs/decisions/0243-quack-rewrite-data-files.md).
    "rewrite": BASE + [
        ("insert_file", ["INSERT INTO lake.s.t SELECT i, 'x' || i, i / 100 FROM range(0, 2000) r(i)"]),
        ("delete_file", ["DELETE FROM lake.s.t WHERE id < 100"]),
        ("delete_file_2", ["DELETE FROM lake.s.t WHERE id % 7 = 0"]),
        ("rewrite", ["CALL ducklake_rewrite_data_files('lake', 't', schema => 's', delete_threshold => 0.0)"]),
    ],
    # A rewrite of some of a table's files: DuckLake leaves the table's stats (docs/decisions/0247-quack-partial-rewrites.md);
    # then a DELETE of every live row of the rewritten file drops it whole (docs/decisions/0248-quack-dropped-files.md).
    "rewrite_some": BASE + [
        ("insert_file", ["INSERT INTO lake.s.t SELECT i, 'x' || i, i / 100 FROM range(0, 2000) r(i)"]),
        ("insert_file_2", ["INSERT INTO lake.s.t SELECT i, 'y' || i, i / 100 FROM range(5000, 7000) r(i)"]),
        ("delete_file", ["DELETE FROM lake.s.t WHERE id < 1500"]),
        ("delete_file_2", ["DELETE FROM lake.s.t WHERE id BETWEEN 5000 AND 5100"]),
        ("rewrite", ["CALL ducklake_rewrite_data_files('lake', 't', schema => 's', delete_threshold => 0.5)"]),
        ("drop_file", ["DELETE FROM lake.s.t WHERE id < 2000"]),
    ],
    # Flushing inlined deletes of a Parquet file into a delete file (docs/decisions/0245-quack-flush-inlined-deletes.md).
    "flush_deletes": BASE + [
        ("insert_file", ["INSERT INTO lake.s.t SELECT i, 'x' || i, i / 100 FROM range(0, 2000) r(i)"]),
        ("delete_inlined", ["DELETE FROM lake.s.t WHERE id < 3"]),
        ("delete_inlined_2", ["DELETE FROM lake.s.t WHERE id = 10"]),
        ("flush", ["CALL ducklake_flush_inlined_data('lake')"]),
    ],
}

LOGQ = """SELECT query FROM duckdb_logs_parsed('Quack') WHERE message_type = 'PREPARE_REQUEST' ORDER BY timestamp"""
READ_TYPES = {"SELECT", "EXPLAIN", "PRAGMA", "SET", "TRANSACTION"}


def is_write(sql):
    try:
        stmts = duckdb.extract_statements(sql)
    except Exception:
        return True
    return any(str(s.type).split(".")[-1] not in READ_TYPES for s in stmts)


def finite(v):
    """NaN and infinities as DuckDB's text ('nan', 'inf', '-inf'): the fixture stays strict JSON."""
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return "nan" if v != v else ("inf" if v > 0 else "-inf")
    if isinstance(v, list):
        return [finite(x) for x in v]
    if isinstance(v, dict):
        return {k: finite(x) for k, x in v.items()}
    return v


def run(name, steps, work):
    meta, data = f"{work}/meta.duckdb", f"{work}/data/"
    os.makedirs(data)
    srv = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", meta, str(args.port)],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        srv.stdout.readline(); srv.stdout.readline()

        def server(cmd):
            srv.stdin.write(cmd + "\n"); srv.stdin.flush(); return srv.stdout.readline().strip()

        def rows():
            names = json.loads(server("sql SELECT table_name FROM information_schema.tables "
                                      "WHERE table_name LIKE 'ducklake_%' ORDER BY ALL"))
            out = {}
            for (t,) in names:
                line = server(f"sql SELECT to_json(list(qd_row)) FROM (SELECT * FROM \"main\".{t} ORDER BY ALL) qd_row")
                if line.startswith("ERR"):
                    raise RuntimeError(line)
                out[t] = finite(json.loads(json.loads(line)[0][0] or "[]"))
            return out

        con = connect(load=("httpfs", "quack", "ducklake"))
        con.execute("CALL enable_logging('Quack')")
        con.execute(f"CREATE SECRET (TYPE quack, TOKEN 'probe-token', SCOPE 'quack:127.0.0.1:{args.port}')")
        out = []
        for step, sqls in [("attach_new", [f"ATTACH 'ducklake:quack:127.0.0.1:{args.port}' AS lake (DATA_PATH '{data}')"])] + steps:
            errors = []
            for sql in sqls:
                try:
                    con.execute(sql).fetchall()
                except Exception as e:
                    errors.append(f"{type(e).__name__}: {e}")
            writes = [q for (q,) in con.execute(LOGQ).fetchall() if q and is_write(q)]
            con.execute("CALL truncate_duckdb_logs()")
            out.append({"step": step, "sql": sqls, "errors": errors, "writes": writes, "rows": rows()})
            print(f"{name}/{step}: {len(writes)} write request(s){' ERR ' + str(errors) if errors else ''}")
        con.close()
        server("quit")
        return {"dataPath": data, "steps": out}
    finally:
        if srv.poll() is None:
            os.killpg(srv.pid, 9)


# The tests read the capture through the loader's imports: a scenario it does not import would be
# captured and never replayed.
with open(LOADER) as f:
    loader = f.read()
unloaded = [n for n in SCENARIOS if (not args.only or n in args.only)
            and f'from "../fixtures/quack/writes/{n}.json"' not in loader]
if unloaded:
    sys.exit(f"{os.path.relpath(LOADER, ROOT)} does not import scenario(s) {', '.join(unloaded)}: add them there first")

result = {"duckdb": duckdb.__version__, "scenarios": {}}
for name, steps in SCENARIOS.items():
    if args.only and name not in args.only:
        continue
    work = tempfile.mkdtemp(prefix=f"qd-capture-{name}-")
    try:
        result["scenarios"][name] = run(name, steps, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)

MINTED = [
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
    (re.compile(r"/tmp/qd-capture-[A-Za-z0-9_-]+/"), "<work>/"),
    # The ATTACH names the capture server's port (--port): any port captures the same batches.
    (re.compile(r"quack:127\.0\.0\.1:\d+"), "quack:127.0.0.1:<port>"),
    (re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?\+\d{2}(:\d{2})?"), "<time>"),
    (re.compile(r"'DuckDB [0-9a-f]+'"), "'DuckDB <build>'"),
]


def shape(v):
    s = json.dumps(v, sort_keys=True)
    for rx, rep in MINTED:
        s = rx.sub(rep, s)
    return s


if args.check:
    old = committed()
    if args.only:
        old["scenarios"] = {n: old["scenarios"][n] for n in args.only if n in old["scenarios"]}
    if shape(old) != shape(result):
        names = sorted(set(old["scenarios"]) | set(result["scenarios"]))
        differ = [n for n in names if shape(old["scenarios"].get(n)) != shape(result["scenarios"].get(n))]
        if old["duckdb"] != result["duckdb"]:
            differ.append(f"duckdb {old['duckdb']} != {result['duckdb']}")
        print(f"the committed fixture differs from a fresh capture ({', '.join(differ)}); re-run without --check",
              file=sys.stderr)
        sys.exit(1)
    print("fixture matches a fresh capture")
else:
    # --only replaces just those scenarios' files; a full capture also removes files of dropped scenarios.
    os.makedirs(OUT_DIR, exist_ok=True)
    if not args.only:
        for path in glob.glob(os.path.join(OUT_DIR, "*.json")):
            if os.path.basename(path)[: -len(".json")] not in result["scenarios"]:
                os.remove(path)
    for name, sc in result["scenarios"].items():
        with open(scenario_file(name), "w") as f:
            json.dump({"duckdb": result["duckdb"], **sc}, f, indent=1, allow_nan=False)
        print("wrote", scenario_file(name))
