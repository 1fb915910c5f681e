"""Stock answers to DuckLake's file and row reads, for catalog/sql/reads-files.ts.

Runs a stock DuckDB 1.5.5 Quack server (in this process, on 127.0.0.1:9230) holding a DuckDB-file DuckLake
catalog, and a stock DuckDB + DuckLake client attached to it over Quack. Each scenario replays the SQL of
one tools/ducklake-golden.py scenario (so test/catalog/ducklake-golden-scenarios.ts builds the same
catalog state with verbs), with read-only statements (scans, filters, time travel, table changes,
maintenance dry runs) interleaved. Every statement the client sent that reads DuckLake's file and row
metadata (ducklake_data_file, ducklake_delete_file, ducklake_file_column_stats, ducklake_inlined_data_*,
ducklake_inlined_delete_*) is then run on the server's own metadata database, at the catalog state after
the scenario statement that sent it, and recorded with its exact column names, DuckDB types and rows (or
its error). Values DuckLake randomises (uuids in paths, Parquet byte sizes) are normalised as
tools/ducklake-golden.py does.

    python3 tools/quack-file-reads-golden.py            # rewrite test/fixtures/quack/file-reads.json
    python3 tools/quack-file-reads-golden.py --check    # exit 1 if the committed fixture differs (CI)
"""
import decimal
import glob
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile

import duckdb
import duckdb_extension_ducklake
import duckdb_extension_httpfs
import duckdb_extension_quack

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "quack", "file-reads.json")
PORT = 9230
TOKEN = "file-reads-token"

_spec = importlib.util.spec_from_file_location("ducklake_golden", os.path.join(HERE, "ducklake-golden.py"))
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)


def ext(mod, name):
    return glob.glob(os.path.dirname(mod.__file__) + f"/extensions/v{duckdb.__version__}/{name}.duckdb_extension")[0]


EXT = {
    "ducklake": ext(duckdb_extension_ducklake, "ducklake"),
    "quack": ext(duckdb_extension_quack, "quack"),
    "httpfs": ext(duckdb_extension_httpfs, "httpfs"),
}


def connect(path, load):
    config = {
        "allow_unsigned_extensions": "true",
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
    }
    con = duckdb.connect(path, config=config)
    for e in load:
        con.execute(f"LOAD '{EXT[e]}'")
    return con


# Read-only statements interleaved with a golden scenario: index i runs after the scenario's statement i
# (-1: before the first); `{head}` is the lake's latest snapshot id then. They commit nothing, so the verb replay of the golden statements alone builds
# the same catalog state.
T = "lake.main.t"
READS = {
    "data": {
        2: [f"SELECT * FROM {T}", f"SELECT * FROM {T} WHERE id = 2"],
        3: [f"SELECT * FROM {T} WHERE id = 4", f"SELECT * FROM {T} WHERE id BETWEEN 2 AND 4"],
        4: [
            f"SELECT * FROM {T} ORDER BY id",
            f"SELECT * FROM {T} WHERE id = 3",
            f"SELECT * FROM {T} AT (VERSION => 3) ORDER BY id",
            "SELECT * FROM ducklake_table_changes('lake', 'main', 't', 2, {head}) ORDER BY ALL",
            "SELECT count(*) FROM lake.main.t",
        ],
    },
    "inlined": {
        1: [f"SELECT * FROM lake.main.small", "SELECT * FROM lake.main.small WHERE id = 2"],
        2: [
            "SELECT * FROM lake.main.small ORDER BY id",
            "SELECT * FROM lake.main.small AT (VERSION => 2) ORDER BY id",
            "SELECT * FROM ducklake_table_changes('lake', 'main', 'small', 1, {head}) ORDER BY ALL",
        ],
    },
    "flush": {
        1: [f"SELECT * FROM {T} ORDER BY id"],
        3: [f"SELECT * FROM {T} ORDER BY id"],
        4: [f"SELECT * FROM {T} WHERE id = 11"],
        6: [
            f"SELECT * FROM {T} ORDER BY id",
            f"SELECT * FROM {T} WHERE id = 20",
            "SELECT * FROM ducklake_table_changes('lake', 'main', 't', 2, {head}) ORDER BY ALL",
        ],
        8: [
            f"SELECT * FROM {T} ORDER BY id",
            f"SELECT * FROM {T} AT (VERSION => 4) ORDER BY id",
            "SELECT * FROM ducklake_table_changes('lake', 'main', 't', 2, {head}) ORDER BY ALL",
            "SELECT count(*) FROM lake.main.t",
        ],
    },
    "deletes": {
        2: [f"SELECT * FROM {T} ORDER BY id", f"SELECT * FROM {T} WHERE id = 14"],
        4: [f"SELECT * FROM {T} ORDER BY id", f"SELECT * FROM {T} WHERE id > 14"],
        5: [
            f"SELECT * FROM {T} ORDER BY id",
            "SELECT * FROM ducklake_table_changes('lake', 'main', 't', 2, {head}) ORDER BY ALL",
            f"SELECT * FROM {T} AT (VERSION => 4) ORDER BY id",
            f"SELECT * FROM {T} AT (VERSION => 5) WHERE id > 14",
            "CALL ducklake_merge_adjacent_files('lake')",
            "CALL ducklake_expire_snapshots('lake', dry_run => true, older_than => now())",
            "CALL ducklake_cleanup_old_files('lake', dry_run => true, cleanup_all => true)",
        ],
    },
    "partitioned": {
        3: ["SELECT * FROM lake.main.events ORDER BY n", "SELECT * FROM lake.main.events WHERE kind = 'b'"],
    },
}

# Scenarios of this tool's own (not in tools/ducklake-golden.py): their verb scripts live in
# test/catalog/sql/file-reads.test.ts. Inlined rows of many types, and a Parquet file whose column stats
# filters of several types keep or prune.
OWN_SCENARIOS = {
    "typed": [
        "CREATE TABLE lake.main.tv (i INTEGER, b BIGINT, d DECIMAL(10,2), s VARCHAR, dt DATE, ts TIMESTAMP, "
        "f DOUBLE, ok BOOLEAN, u UUID, h HUGEINT)",
        "INSERT INTO lake.main.tv VALUES (1, 10000000000, 1.50, 'a', '2026-01-02', '2026-01-02 03:04:05.123456', "
        "1.25, true, '00000000-0000-0000-0000-000000000001', 123), (2, NULL, -2.05, NULL, NULL, NULL, NULL, false, NULL, NULL)",
        "CREATE TABLE lake.main.tf (id INTEGER, d DECIMAL(10,2), s VARCHAR, dt DATE)",
        "INSERT INTO lake.main.tf SELECT i, i / 4, 'k' || i, DATE '2026-01-01' + i::INTEGER FROM range(0, 20) r(i)",
        "DELETE FROM lake.main.tv WHERE i = 2",
    ],
}
OWN_SCENARIOS["rotate"] = [
    "CREATE TABLE lake.main.t (id INTEGER, s VARCHAR)",
    "INSERT INTO lake.main.t VALUES (1, 'a'), (2, 'b')",
    "ALTER TABLE lake.main.t ADD COLUMN note VARCHAR DEFAULT 'n'",
    "INSERT INTO lake.main.t VALUES (3, 'c', 'z')",
    "DELETE FROM lake.main.t WHERE id = 2",
]
READS["rotate"] = {
    2: ["SELECT * FROM lake.main.t ORDER BY id"],
    4: [
        "SELECT * FROM lake.main.t ORDER BY id",
        "SELECT * FROM lake.main.t WHERE id = 3",
        "SELECT * FROM lake.main.t AT (VERSION => 2) ORDER BY id",
        "SELECT * FROM ducklake_table_changes('lake', 'main', 't', 1, {head}) ORDER BY ALL",
    ],
}
READS["typed"] = {
    3: [
        "SELECT * FROM lake.main.tv ORDER BY i",
        "SELECT * FROM lake.main.tv WHERE d > 1",
        "SELECT * FROM lake.main.tf WHERE d > 2.5",
        "SELECT * FROM lake.main.tf WHERE d > 100",
        "SELECT * FROM lake.main.tf WHERE s = 'k5'",
        "SELECT * FROM lake.main.tf WHERE s = 'zz'",
        "SELECT * FROM lake.main.tf WHERE dt = DATE '2026-01-05'",
        "SELECT * FROM lake.main.tf WHERE dt > DATE '2027-01-01'",
        "SELECT * FROM lake.main.tf WHERE dt BETWEEN DATE '2026-01-05' AND DATE '2026-01-07' AND id > 3",
        "SELECT * FROM lake.main.tf WHERE id < 0",
    ],
    4: ["SELECT * FROM lake.main.tv ORDER BY i", "SELECT * FROM lake.main.tv AT (VERSION => 2) ORDER BY i"],
}

# Template instances DuckLake did not happen to send, run on the metadata database as they are: each
# (old, new) rewrites every family read sent at that step whose text contains `old` (filters that prune
# the file, which DuckLake itself skips asking for when its table-level stats already exclude it).
VARIANTS = {
    "typed": {
        3: [
            ("> 2.50", "> 100.00"),
            ("'k5' BETWEEN", "'zz' BETWEEN"),
            ("'2026-01-05' BETWEEN", "'2027-01-05' BETWEEN"),
            ("<= '2026-01-07'", "<= '2026-01-01'"),
            ("> 3))))", "> 30))))"),
        ]
    },
}

# Captured template instances DuckLake sends only in maintenance this tool cannot replay as verbs (the
# expire listings) or states it does not reach here (the whole-table inlined count): run on the
# metadata database as they are, after the given statement.
EXTRA = {
    "flush": {
        6: ['SELECT COUNT(*) FROM "main".ducklake_inlined_data_1_1'],
    },
    "deletes": {
        5: [
            'SELECT data_file_id, table_id, path, path_is_relative FROM "main".ducklake_data_file WHERE (end_snapshot '
            'IS NOT NULL AND NOT EXISTS( SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_id >= '
            "begin_snapshot AND snapshot_id < end_snapshot ))",
            'SELECT delete_file_id, table_id, path, path_is_relative FROM "main".ducklake_delete_file WHERE (end_snapshot '
            'IS NOT NULL AND NOT EXISTS( SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_id >= '
            "begin_snapshot AND snapshot_id < end_snapshot ))",
        ],
    },
}

FAMILY = re.compile(
    r"ducklake_data_file|ducklake_delete_file|ducklake_file_column_stats|ducklake_inlined_data_\d|ducklake_inlined_delete_"
)
UUID_IN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def is_read(sql):
    """catalog/sql/kind.ts's rule: SELECT, or WITH with no INSERT/UPDATE/DELETE outside parentheses."""
    if re.match(r"\s*SELECT\b", sql, re.I):
        return True
    if not re.match(r"\s*WITH\b", sql, re.I):
        return False
    depth = 0
    for tok in re.findall(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\w+|[()]", sql):
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
        elif depth == 0 and tok.upper() in ("INSERT", "UPDATE", "DELETE"):
            return False
    return True


def is_family_read(sql):
    return is_read(sql) and bool(FAMILY.search(sql))


def split_statements(q):
    out, cur, inq = [], [], False
    for ch in q:
        if ch == "'":
            inq = not inq
        if ch == ";" and not inq:
            s = "".join(cur).strip()
            if s:
                out.append(s)
            cur = []
        else:
            cur.append(ch)
    s = "".join(cur).strip()
    if s:
        out.append(s)
    return out


def value(column, v):
    """A result value as JSON, normalised like tools/ducklake-golden.py (uuids in text, Parquet sizes)."""
    if v is None:
        return None
    if (column.endswith("file_size_bytes") or column.endswith("footer_size")) and v != 0:
        return "<bytes>"
    if isinstance(v, bool) or isinstance(v, int) or isinstance(v, float):
        return v
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, str):
        return UUID_IN.sub("<uuid>", v)
    if isinstance(v, (list, tuple)):
        return [value("", x) for x in v]
    if isinstance(v, dict):
        return {k: value(k, x) for k, x in v.items()}
    if isinstance(v, (bytes, bytearray)):
        return "\\x" + bytes(v).hex()
    return str(v)


def answer(srv, sql):
    try:
        rel = srv.sql(sql)
        cols = [[c, str(t)] for c, t in zip(rel.columns, rel.types)]
        rows = [[value(c, v) for (c, _), v in zip(cols, r)] for r in rel.fetchall()]
        return {"columns": cols, "rows": rows}
    except duckdb.Error as e:
        return {"error": str(e)}


def run(name, statements, reads, variants, extra):
    tmp = tempfile.mkdtemp(prefix="quack-file-reads-")
    try:
        srv = connect(f"{tmp}/meta.duckdb", ("httpfs", "quack"))
        srv.execute(f"CALL quack_serve('quack:127.0.0.1:{PORT}', token => '{TOKEN}')")
        cli = connect(":memory:", ("httpfs", "quack", "ducklake"))
        cli.execute(f"CREATE SECRET (TYPE quack, TOKEN '{TOKEN}', SCOPE 'quack:127.0.0.1:{PORT}')")
        cli.execute(f"ATTACH 'ducklake:quack:127.0.0.1:{PORT}' AS lake (DATA_PATH '{tmp}/data/')")
        cli.execute("CALL enable_logging('Quack')")
        out = []
        seen = set()

        def run_client(sql, after):
            if "{head}" in sql:
                head = cli.execute("SELECT max(snapshot_id) FROM lake.snapshots()").fetchone()[0]
                sql = sql.replace("{head}", str(head))
            cli.execute("CALL truncate_duckdb_logs()")
            cli.execute(sql).fetchall()
            sent = cli.execute(
                "SELECT query FROM duckdb_logs_parsed('Quack') WHERE message_type = 'PREPARE_REQUEST' ORDER BY timestamp"
            ).fetchall()
            for (q,) in sent:
                for stmt in split_statements(q or ""):
                    if is_family_read(stmt) and (after, stmt) not in seen:
                        seen.add((after, stmt))
                        out.append({"after": after, "sent_by": sql, "sql": stmt, **answer(srv, stmt)})
                        for old, new in variants.get(after, []):
                            v = stmt.replace(old, new)
                            if old in stmt and (after, v) not in seen:
                                seen.add((after, v))
                                out.append({"after": after, "sent_by": f"variant of {sql}", "sql": v, **answer(srv, v)})

        for sql in reads.get(-1, []):
            run_client(sql, -1)
        for i, sql in enumerate(statements):
            run_client(sql, i)
            for x in extra.get(i, []):
                out.append({"after": i, "sent_by": "(run directly)", "sql": x, **answer(srv, x)})
            for r in reads.get(i, []):
                before = cli.execute("SELECT max(snapshot_id) FROM lake.snapshots()").fetchone()[0]
                run_client(r, i)
                after = cli.execute("SELECT max(snapshot_id) FROM lake.snapshots()").fetchone()[0]
                if after != before:
                    sys.exit(f"{name}: {r!r} committed snapshot {after}: only read-only statements may interleave")
        cli.execute("DETACH lake")
        cli.close()
        srv.close()
        # DuckLake may send a step's reads concurrently (their log order varies run to run): keep one
        # canonical order so the fixture, and so `--check`, is deterministic (steps stay in order).
        out.sort(key=lambda e: (e["after"], e["sent_by"], e["sql"]))
        return {"scenario": name, "statements": statements, "reads": out}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


CAPTURE_DIRS = [
    os.environ.get("QUACK_CAPTURES", ""),
    os.path.join(HERE, "..", "..", "shared", "quack-capture", "captures"),
    "/work/shared/quack-capture/captures",
]


def shape(sql):
    """A statement with literals as ?, inlined table names as _N and whitespace collapsed (one per form)."""
    t = re.sub(r"'(?:[^']|'')*'", "?", sql)
    t = re.sub(r"ducklake_inlined_data_\d+_\d+", "ducklake_inlined_data_N_N", t)
    t = re.sub(r"ducklake_inlined_delete_\d+", "ducklake_inlined_delete_N", t)
    t = re.sub(r"(?<![\w.])-?\d+(\.\d+)?(?![\w])", "?", t)
    return re.sub(r"\s+", " ", t).strip()


def captured():
    """Every distinct form of a family read that the captured stock sessions sent (capture.json), one
    example each, with the template name templates.py gave it."""
    base = next((d for d in CAPTURE_DIRS if d and os.path.exists(os.path.join(d, "templates-client-commit.json"))), None)
    if base is None:
        sys.exit("no quack-capture templates found; set QUACK_CAPTURES to shared/quack-capture/captures")
    out, seen = [], set()
    for mode in ("client-commit", "server-commit"):
        with open(os.path.join(base, mode, "capture.json")) as f:
            rows = json.load(f)
        for r in rows:
            if r["message_type"] != "PREPARE_REQUEST" or not r["query"]:
                continue
            for stmt in split_statements(r["query"]):
                example = re.sub(r"\s+", " ", stmt).strip()
                key = shape(example)
                if is_family_read(example) and key not in seen:
                    seen.add(key)
                    out.append({"step": r["step"], "example": example})
    return out


def main():
    check = "--check" in sys.argv
    doc = {
        "duckdb": duckdb.__version__,
        "captured": captured(),
        "scenarios": [
            run(name, OWN_SCENARIOS.get(name) or golden.SCENARIOS[name], reads, VARIANTS.get(name, {}), EXTRA.get(name, {}))
            for name, reads in READS.items()
        ],
    }
    text = golden.to_text(doc)
    if check:
        old = open(OUT).read() if os.path.exists(OUT) else None
        if old != text:
            print(f"{OUT} differs from stock DuckLake; rerun tools/quack-file-reads-golden.py")
            sys.exit(1)
        print(f"file-read answers match stock DuckDB {duckdb.__version__} over Quack")
        return
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(text)
    n = sum(len(s["reads"]) for s in doc["scenarios"])
    print(f"wrote {OUT}: {n} reads")


if __name__ == "__main__":
    main()
