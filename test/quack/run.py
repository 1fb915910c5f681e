"""Quack conformance suite: the same DuckLake sessions, run by stock DuckDB 1.5.5 clients (pinned wheels,
tools/requirements.txt) against ducklake-edge (`wrangler dev --local`) and against a stock DuckDB Quack
server holding a DuckDB-file DuckLake catalog, in one run. For every statement the result (column types
and values, or the error's class) must be identical; after each session the `ducklake_*` rows of both
catalogs must match row for row, modulo UUIDs, times and the data directory (and the values listed in
BY_DESIGN, each with its decision record). Then the checks only ducklake-edge has: scopes and lake
selection (a read token is read-only, a wrong lake and no token are refused) and one catalog behind both
front doors (a lake created and written over HTTP attaches; a Quack-created table is in the scan plan).

    python3 test/quack/run.py [--session NAME] [--keep]

Ports: QUACK_TEST_PORTS="first-last" (e.g. 9204-9219) picks from that range; otherwise free ports.
Every process it starts runs in its own process group and is killed (SIGTERM, then SIGKILL after a grace
period) when the run ends, however it ends. Exit status 0 only with zero differences.
"""
import argparse, atexit, datetime, decimal, glob, json, os, re, shutil, signal, socket, subprocess, sys, tempfile
import time, urllib.error, urllib.request, uuid

import duckdb
import duckdb_extension_ducklake, duckdb_extension_httpfs, duckdb_extension_quack

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from sessions import (  # noqa: E402
    ATTACH as ATTACH_SQL, DELETE_FILE_IDS_BY_CONTENT, FILE_IDS_BY_CONTENT, RACY_ON_STOCK, SERVER_COMMIT_PENDING,
    SESSIONS, STOCK_STORAGE, VALUE_PROPERTY)

# QUACK_SESSIONS_MODULE=path/to/file.py runs that file's SESSIONS instead (to probe statements locally).
if os.environ.get("QUACK_SESSIONS_MODULE"):
    import importlib.util
    _spec = importlib.util.spec_from_file_location("probe_sessions", os.environ["QUACK_SESSIONS_MODULE"])
    _mod = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_mod)
    SESSIONS = _mod.SESSIONS

DEV_TOKEN = "quack-conformance-dev-token-0123456789"
STOCK_TOKEN = "stock-conformance-token"
# A read-scope token for the first session's lake: the edge-only checks of scopes and lake selection.
READ_TOKEN = "quack-conformance-read-0123456789"
READ_LAKE = "conf-create-and-insert"
WRANGLER_READY_S = 120
RUN_TIMEOUT_S = 900
GRACE_S = 5

# ---------------------------------------------------------------------------------------------- processes
STARTED = []  # process groups started by this run


def stop_all():
    for p in STARTED:
        if p.poll() is not None:
            continue
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
    deadline = time.time() + GRACE_S
    for p in STARTED:
        while p.poll() is None and time.time() < deadline:
            time.sleep(0.1)
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()


atexit.register(stop_all)
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
    signal.signal(sig, lambda s, f: sys.exit(f"quack conformance: stopped by signal {s}"))


def port_source():
    spec = os.environ.get("QUACK_TEST_PORTS")
    if spec:
        first, last = (int(x) for x in spec.split("-"))
        pool = list(range(first, last + 1))
    else:
        pool = None

    def release(port):
        if pool is not None:
            pool.append(port)

    def take():
        while True:
            if pool is not None:
                if not pool:
                    raise RuntimeError("QUACK_TEST_PORTS range exhausted")
                port = pool.pop(0)
            else:
                port = 0
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return s.getsockname()[1]

    take.release = release
    return take


# ---------------------------------------------------------------------------------------------- servers
def ext(mod, name):
    return glob.glob(os.path.dirname(mod.__file__) + f"/extensions/v{duckdb.__version__}/{name}.duckdb_extension")[0]


EXT = {"ducklake": ext(duckdb_extension_ducklake, "ducklake"), "quack": ext(duckdb_extension_quack, "quack"),
       "httpfs": ext(duckdb_extension_httpfs, "httpfs")}


def connect(path=":memory:", load=("httpfs", "quack", "ducklake"), storage=None):
    config = {"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false",
              "autoload_known_extensions": "false"}
    if storage:
        config["storage_compatibility_version"] = storage
    con = duckdb.connect(path, config=config)
    for e in load:
        con.execute(f"LOAD '{EXT[e]}'")
    return con


def start_wrangler(port, inspector, state_dir, log_path, server_commit=False, extra_vars=(), life_s=RUN_TIMEOUT_S):
    """`wrangler dev` on 127.0.0.1:port, ready (GET / answers 200) or an error; `extra_vars` are more
    `--var NAME:VALUE`, `life_s` its hard life cap (test/ducklake-suite/run.py runs longer than this suite)."""
    cmd = ["npx", "wrangler", "dev", "--local", "--ip", "127.0.0.1", "--port", str(port),
           "--inspector-port", str(inspector), "--persist-to", state_dir, "--show-interactive-dev-session=false",
           "--var", "DEV_AUTH:enabled", "--var", f"DEV_TOKEN:{DEV_TOKEN}",
           "--var", "AUTH_TOKENS:" + json.dumps({READ_TOKEN: {"lakes": [READ_LAKE], "scope": "read"}}),
           "--var", "QUACK_SERVER_COMMIT:" + ("enabled" if server_commit else "disabled")]
    for v in extra_vars:
        cmd += ["--var", v]
    log = open(log_path, "w")
    p = subprocess.Popen(["timeout", str(life_s), *cmd], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    STARTED.append(p)
    deadline = time.time() + WRANGLER_READY_S
    while time.time() < deadline:
        if p.poll() is not None:
            raise RuntimeError(f"wrangler dev exited ({p.returncode}); see {log_path}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                if r.status == 200:
                    return p
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.5)
    raise RuntimeError(f"wrangler dev not ready after {WRANGLER_READY_S}s; see {log_path}")


class StockServer:
    """Stock DuckDB as a Quack server over a DuckDB-file DuckLake catalog (no ducklake on the server:
    DuckLake then commits client-side, as against ducklake-edge)."""

    def __init__(self, path, port, storage=None):
        self.port = port
        # `storage`: the catalog file's storage version; a VARIANT column needs v1.5.0 (STOCK_STORAGE).
        self.con = connect(path, load=("httpfs", "quack"), storage=storage)
        self.con.execute(f"CALL quack_serve('quack:127.0.0.1:{port}', token => '{STOCK_TOKEN}')")

    def rows(self, table):
        cur = self.con.cursor()
        try:
            rel = cur.execute(f'SELECT * FROM "main".{table}')
            cols = [d[0] for d in rel.description]
            return cols, rel.fetchall()
        except duckdb.Error:
            return None, None

    def tables(self):
        return [r[0] for r in self.con.cursor().execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
            "AND table_name LIKE 'ducklake_%' AND table_name NOT LIKE 'ducklake_inlined_%' ORDER BY 1").fetchall()]

    def stop(self):
        try:
            self.con.execute(f"CALL quack_stop('quack:127.0.0.1:{self.port}')")
        except duckdb.Error:
            pass
        self.con.close()


def edge_rows(port, lake, table):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/lakes/{lake}/ducklake/{table}",
                                 headers={"authorization": f"Bearer {DEV_TOKEN}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            body = json.load(r)
    except urllib.error.HTTPError as e:
        return None, [("HTTP", e.code, e.read().decode()[:200])]
    return body["columns"], [[row.get(c) for c in body["columns"]] for row in body["rows"]]


# ---------------------------------------------------------------------------------------------- normalising
# Catalog values that differ by design, each with the decision record that says why.
BY_DESIGN = {
    # docs/decisions/0231: `created_by` names the writer that created the lake (ducklake-edge), not DuckDB.
    ("ducklake_metadata", "created_by"): "<created_by>",
}

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}(:?\d{2})?|Z)?$")


def norm(v, data_dirs=()):
    """A comparable string for a value from either side (stock Python values or the edge route's JSON)."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (datetime.datetime, datetime.time)):
        return "<time>"
    if isinstance(v, uuid.UUID):
        return "<uuid>"
    if isinstance(v, (int, decimal.Decimal)):
        return str(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else repr(v)
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):
        return "0x" + bytes(v).hex()
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(norm(x, data_dirs) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {norm(x, data_dirs)}" for k, x in v.items()) + "}"
    s = str(v)
    if TIME_RE.match(s):
        return "<time>"
    for d in data_dirs:
        s = s.replace(d, "<data>/")
    return UUID_RE.sub("<uuid>", s)


def run_parallel(n, sql, setup):
    """`n` clients at once, each with its own connection and ATTACH, each running `sql` once."""
    import threading
    results = [None] * n

    def one(i):
        con = connect()
        try:
            for stmt in setup:
                con.execute(stmt)
            results[i] = run_statement(con, sql)
        except duckdb.Error as e:
            results[i] = {"ok": False, "class": type(e).__name__, "message": str(e)}
        finally:
            con.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"ok": all(r["ok"] for r in results), "types": [], "class": "parallel",
            "rows": sorted(json.dumps(r, sort_keys=True) for r in results), "each": results}


CONFLICT_RE = re.compile(r"Transaction conflict - attempting to [^\n]*? - but another transaction has [a-z ]+")


RETRY_COUNT_RE = re.compile(r"Failed to commit DuckLake transaction\.\nExceeded the maximum retry count of \d+ set by "
                            r"the ducklake_max_retry_count setting\.")


def same_conflict(stock_message, edge_message):
    """DuckLake's conflict and retry-count texts, where stock answers one, are in the edge's answer too
    (DuckLake's retry and users match them); other errors compare by class only."""
    for pattern in (CONFLICT_RE, RETRY_COUNT_RE):
        m = pattern.search(stock_message)
        if m is not None and m.group(0) not in edge_message:
            return False
    return True


def run_statement(con, sql, data_dirs=()):
    """One statement's result; the side's data directory in a value (cleanup's file paths) reads `<data>/`."""
    try:
        rel = con.execute(sql)
        if rel.description is None:
            return {"ok": True, "types": [], "rows": []}
        types = [str(d[1]) for d in rel.description]
        return {"ok": True, "types": types, "rows": [[norm(v, data_dirs) for v in r] for r in rel.fetchall()]}
    except duckdb.Error as e:
        return {"ok": False, "class": type(e).__name__, "message": str(e)}


# ---------------------------------------------------------------------------------------------- sessions
def run_session(name, statements, edge_port, take_port, work):
    lake = f"conf-{name}"[:63]
    stock_port = take_port()
    stock = StockServer(f"{work}/{name}-stock-meta.duckdb", stock_port, STOCK_STORAGE.get(name))
    # Same-length directory names: DuckDB writes the data path into delete files, whose sizes are compared.
    dirs = {"edge": f"{work}/{name}-data-e/", "stock": f"{work}/{name}-data-s/"}
    secrets = {
        "edge": f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{DEV_TOKEN}', SCOPE 'quack:127.0.0.1:{edge_port}/{lake}')",
        "stock": f"CREATE SECRET (TYPE quack, TOKEN '{STOCK_TOKEN}', SCOPE 'quack:127.0.0.1:{stock_port}')",
    }
    clients = {}
    for side in ("edge", "stock"):
        clients[side] = connect()
        clients[side].execute(secrets[side])
    others = {}  # ("on", name, sql): a second client per side, attached like the first, its own transactions

    def other(side, client):
        if (side, client) not in others:
            con = connect()
            con.execute(secrets[side])
            con.execute(ATTACH_SQL.replace("{attach}", attach[side]).replace("{data}", dirs[side]))
            others[(side, client)] = con
        return others[(side, client)]
    attach = {"edge": f"ducklake:quack:127.0.0.1:{edge_port}/{lake}", "stock": f"ducklake:quack:127.0.0.1:{stock_port}"}
    diffs = []
    try:
        for i, template in enumerate(statements):
            got = {}
            for side in ("stock", "edge"):
                if isinstance(template, tuple) and template[0] == "on":  # ("on", client, sql)
                    _, client, sql = template
                    got[side] = run_statement(other(side, client), sql, (dirs[side],))
                    continue
                if isinstance(template, tuple):  # ("parallel", n, sql): n clients at once
                    _, n, sql = template
                    setup = [secrets[side], ATTACH_SQL.replace("{attach}", attach[side]).replace("{data}", dirs[side])]
                    got[side] = run_parallel(n, sql, setup)
                    continue
                sql = template.replace("{attach}", attach[side]).replace("{data}", dirs[side])
                got[side] = run_statement(clients[side], sql, (dirs[side],))
            a, b = got["stock"], got["edge"]
            parallel_failed = isinstance(template, tuple) and template[0] == "parallel" and not (a["ok"] and b["ok"])
            same = not parallel_failed and (a["ok"] == b["ok"]) and (
                (a["ok"] and a["types"] == b["types"] and a["rows"] == b["rows"]) or
                (not a["ok"] and a["class"] == b["class"] and same_conflict(a["message"], b["message"])))
            if not same:
                diffs.append({"step": i, "statement": template, "stock": a, "edge": b})
                if a["ok"] and not b["ok"]:
                    break  # later statements depend on this one
            elif name in VALUE_PROPERTY and not a["ok"]:
                # A generated statement stock refuses would make the comparison vacuous.
                diffs.append({"step": i, "statement": template, "stock refused a generated statement": a})
        if not diffs and name not in VALUE_PROPERTY:
            diffs += compare_catalogs(stock, edge_port, lake, list(dirs.values()), RACY_ON_STOCK.get(name, {}),
                                      name in FILE_IDS_BY_CONTENT, name in DELETE_FILE_IDS_BY_CONTENT)
    finally:
        for c in [*clients.values(), *others.values()]:
            c.close()
        stock.stop()
        take_port.release(stock_port)
    return diffs


def files_on_disk(data_dirs):
    """Every file under the sides' data directories by name (DuckLake's file names carry a UUID)."""
    sizes = {}
    for d in data_dirs:
        for root, _, names in os.walk(d):
            for n in names:
                sizes[n] = os.path.getsize(os.path.join(root, n))
    return sizes


def file_size_vs_disk(path, recorded, on_disk):
    """A client-written file's recorded size, checked against the file itself rather than the other side.

    DuckDB (the client) writes data and delete files on both sides, and a delete file holds its data file's
    path, whose random UUID makes the compressed size differ by a few bytes between two runs. What the
    catalog must get right is that the size it records is the file's size, so that is what is compared."""
    name = os.path.basename(str(path))
    if name not in on_disk:
        return norm(recorded)  # removed since (cleanup): compare the number as recorded
    return "<size of file>" if int(recorded) == on_disk[name] else f"{recorded} (file has {on_disk[name]})"


def file_ids_by_content(cols, rows, id_name="data_file_id", data_ids=None):
    """id_name → its rank among the side's files ordered by everything but the id and size, the path with
    its UUID masked (a partition's files differ only by their `k=v/` directory). `data_ids`: the side's
    data_file_ids renumbered the same way, so delete files rank by the data file they delete from."""
    if cols is None or id_name not in cols:
        return {}
    skip = {cols.index(c) for c in (id_name, "file_size_bytes") if c in cols}
    path = cols.index("path") if "path" in cols else -1
    data = cols.index("data_file_id") if data_ids is not None and "data_file_id" in cols else -1

    def key(r):
        out = []
        for j, v in enumerate(r):
            if j in skip:
                continue
            if j == path:
                out.append(UUID_RE.sub("<uuid>", os.path.basename(str(v))) + "|" +
                           "/".join(p for p in str(v).split("/")[:-1] if "=" in p))
            elif j == data:
                out.append(data_ids.get(norm(v), norm(v)))
            else:
                out.append(norm(v))
        return out
    ids = [r[cols.index(id_name)] for r in rows]
    ranked = sorted(rows, key=key)
    return {norm(r[cols.index(id_name)]): norm(i) for r, i in zip(ranked, sorted(ids))}


def compare_catalogs(stock, edge_port, lake, data_dirs, racy, renumber_files=False, renumber_deletes=False):
    diffs = []
    on_disk = files_on_disk(data_dirs)
    file_ids = {"stock": {}, "edge": {}}
    if renumber_files:
        file_ids["stock"] = file_ids_by_content(*stock.rows("ducklake_data_file"))
        file_ids["edge"] = file_ids_by_content(*edge_rows(edge_port, lake, "ducklake_data_file"))
    delete_ids = {"stock": {}, "edge": {}}
    if renumber_deletes:
        delete_ids["stock"] = file_ids_by_content(*stock.rows("ducklake_delete_file"), "delete_file_id",
                                                  file_ids["stock"])
        delete_ids["edge"] = file_ids_by_content(*edge_rows(edge_port, lake, "ducklake_delete_file"),
                                                 "delete_file_id", file_ids["edge"])
    for table in stock.tables():
        if table in racy:
            truth = racy[table]
            if truth is not None:
                cols, rows = edge_rows(edge_port, lake, table)
                mine = [dict(zip(cols or [], r)) for r in rows if cols and r[cols.index("table_id")] == truth["table_id"]]
                if len(mine) != 1 or mine[0].get("record_count") != truth["record_count"]:
                    diffs.append({"catalog": table, "expected": truth, "edge": mine})
            continue
        scols, srows = stock.rows(table)
        ecols, erows = edge_rows(edge_port, lake, table)
        if ecols is None:
            diffs.append({"catalog": table, "edge": erows})
            continue
        if scols != ecols:
            diffs.append({"catalog": table, "stock_columns": scols, "edge_columns": ecols})
            continue
        # Time columns: by name, or by stock's value type (the edge's JSON route renders some as epoch µs).
        time_cols = {i for i, c in enumerate(scols) if c.endswith("_time")} | {
            i for r in srows for i, v in enumerate(r) if isinstance(v, datetime.datetime)}

        sized = table in ("ducklake_data_file", "ducklake_delete_file") and "file_size_bytes" in scols
        size_col = scols.index("file_size_bytes") if sized else -1
        path_col = scols.index("path") if sized else -1

        id_col = scols.index("data_file_id") if "data_file_id" in scols else -1
        delete_col = scols.index("delete_file_id") if table == "ducklake_delete_file" else -1
        # An ENCRYPTED lake's file keys are random per file: compared as present or absent.
        key_col = scols.index("encryption_key") if sized and "encryption_key" in scols else -1

        def rows(rs, side):
            out = []
            for r in rs:
                vals = ["<time>" if i in time_cols else norm(v, data_dirs) for i, v in enumerate(r)]
                if sized:
                    vals[size_col] = file_size_vs_disk(r[path_col], r[size_col], on_disk)
                if key_col >= 0 and r[key_col] is not None:
                    vals[key_col] = "<encryption key>"
                if id_col >= 0:
                    vals[id_col] = file_ids[side].get(vals[id_col], vals[id_col])
                if delete_col >= 0:
                    vals[delete_col] = delete_ids[side].get(vals[delete_col], vals[delete_col])
                if vals and (table, vals[0]) in BY_DESIGN:
                    vals[1] = BY_DESIGN[(table, vals[0])]
                out.append(tuple(vals))
            return sorted(out)

        s, e = rows(srows, "stock"), rows(erows, "edge")
        if s != e:
            diffs.append({"catalog": table, "only_stock": [r for r in s if r not in e][:10],
                          "only_edge": [r for r in e if r not in s][:10]})
    return diffs


def edge_auth_checks(edge_port):
    """What only ducklake-edge has (stock has one token and no scopes): a read token attaches read-only,
    every write it attempts fails with a clear error; no token and a wrong lake are refused at ATTACH."""
    problems = []
    host = f"quack:127.0.0.1:{edge_port}"

    def attempt(secret_token, lake, statements):
        con = connect()
        try:
            if secret_token is not None:
                con.execute(f"CREATE SECRET (TYPE quack, TOKEN '{secret_token}', SCOPE '{host}/{lake}')")
            out = []
            for sql in statements:
                try:
                    out.append(("ok", con.execute(sql).fetchall()))
                except duckdb.Error as e:
                    out.append(("error", str(e)))
                    break
            return out
        finally:
            con.close()

    attach = f"ATTACH 'ducklake:{host}/{READ_LAKE}' AS lake"
    got = attempt(f"{READ_LAKE}:{READ_TOKEN}", READ_LAKE,
                  [attach, "SELECT count(*) FROM lake.t", "INSERT INTO lake.t VALUES (9, 'z')"])
    if [g[0] for g in got] != ["ok", "ok", "error"] or "read scope" not in got[2][1]:
        problems.append({"check": "read token: attach and read, every write refused", "got": got})
    got = attempt(f"other-lake:{READ_TOKEN}", "other-lake", [f"ATTACH 'ducklake:{host}/other-lake' AS lake"])
    if got[0][0] != "error" or "not valid for lake 'other-lake'" not in got[0][1]:
        problems.append({"check": "wrong lake refused at ATTACH", "got": got})
    # Without a token DuckDB itself refuses before connecting (an empty auth string reaching the server is
    # refused there too: test/worker/quack/route.test.ts).
    got = attempt(None, READ_LAKE, [attach])
    if got[0][0] != "error" or "Could not find a Quack authentication token" not in got[0][1]:
        problems.append({"check": "no token refused at ATTACH", "got": got})
    return problems


def http(port, method, path, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"authorization": f"Bearer {DEV_TOKEN}", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()[:300]


def two_front_doors(edge_port, work):
    """One catalog, two front doors: a lake created and written over HTTP attaches and reads in DuckDB;
    a table DuckDB creates over Quack is in the HTTP API's `ducklake_*` rows and scan plan."""
    lake, problems = "conf-http", []
    status, body = http(edge_port, "PUT", f"/v1/lakes/{lake}", {"dataPath": f"{work}/http-data/"})
    if status != 201:
        return [{"check": "PUT lake", "got": [status, body]}]
    verbs = [{"op": "create_table", "name": "viahttp", "columns": [{"name": "id", "type": "int64"}]},
             {"op": "inline_insert", "table": {"name": "viahttp"}, "rows": [{"id": 42}]}]
    status, body = http(edge_port, "POST", f"/v1/lakes/{lake}/commits", {"verbs": verbs})
    if status != 200:
        return [{"check": "verb commit", "got": [status, body]}]
    con = connect()
    try:
        con.execute(f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{DEV_TOKEN}', SCOPE 'quack:127.0.0.1:{edge_port}/{lake}')")
        con.execute(f"ATTACH 'ducklake:quack:127.0.0.1:{edge_port}/{lake}' AS lake")
        got = con.execute("SELECT * FROM lake.viahttp").fetchall()
        if got != [(42,)]:
            problems.append({"check": "HTTP-written rows read over Quack", "got": got})
        con.execute("CREATE TABLE lake.viaquack (s VARCHAR)")
        con.execute("INSERT INTO lake.viaquack VALUES ('hello')")
    except duckdb.Error as e:
        problems.append({"check": "Quack session on an HTTP-created lake", "got": str(e)})
    finally:
        con.close()
    status, plan = http(edge_port, "GET", f"/v1/lakes/{lake}/tables/main/viaquack/plan")
    if status != 200 or len(plan.get("inlined_rows", [])) != 1:
        problems.append({"check": "Quack-written table in the HTTP scan plan", "got": [status, plan]})
    return problems


def main():
    sys.modules.setdefault("run", sys.modules[__name__])  # n_process's `import run` is this run (its STARTED)
    import n_process as n_process_check  # noqa: E402

    ap = argparse.ArgumentParser()
    ap.add_argument("--session", action="append")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--server-commit", action="store_true",
                    help="list ducklake_commit (QUACK_SERVER_COMMIT=enabled): DuckLake commits data server-side")
    args = ap.parse_args()
    signal.alarm(RUN_TIMEOUT_S)
    pending = set(SERVER_COMMIT_PENDING) if args.server_commit else set()
    # The N-process check (test/quack/n_process.py) runs with --server-commit, or alone by its name.
    n_process = args.server_commit and (not args.session or n_process_check.NAME in args.session)
    names = [n for n in args.session if n != n_process_check.NAME] if args.session else [
        n for n in SESSIONS if n not in pending]
    take_port = port_source()
    work = tempfile.mkdtemp(prefix="quack-conformance-")
    edge_port, inspector = take_port(), take_port()
    failed = 0
    try:
        start_wrangler(edge_port, inspector, f"{work}/wrangler-state", f"{work}/wrangler.log",
                       server_commit=args.server_commit)
        for name in names:
            started = time.time()
            diffs = run_session(name, SESSIONS[name], edge_port, take_port, work)
            took = time.time() - started
            if diffs:
                failed += 1
                print(f"FAIL {name} ({took:.1f}s)")
                print(json.dumps(diffs, indent=1, default=str)[:6000])
            else:
                print(f"ok   {name} ({took:.1f}s, {len(SESSIONS[name])} statements + catalog rows)")
        if READ_LAKE.removeprefix("conf-") in names:
            problems = edge_auth_checks(edge_port)
            if problems:
                failed += 1
                print("FAIL edge auth checks")
                print(json.dumps(problems, indent=1, default=str)[:4000])
            else:
                print("ok   edge auth checks (read token read-only, wrong lake and no token refused)")
            problems = two_front_doors(edge_port, work)
            if problems:
                failed += 1
                print("FAIL one catalog, two front doors")
                print(json.dumps(problems, indent=1, default=str)[:4000])
            else:
                print("ok   one catalog, two front doors (HTTP-created lake over Quack; Quack table in the scan plan)")
        if n_process:
            started = time.time()
            problems = n_process_check.check(edge_port, take_port, work)
            took = time.time() - started
            if problems:
                failed += 1
                print(f"FAIL {n_process_check.NAME} ({took:.1f}s)")
                print(json.dumps(problems, indent=1, default=str)[:6000])
            else:
                print(f"ok   {n_process_check.NAME} ({took:.1f}s, {n_process_check.CLIENTS} client processes x "
                      f"{n_process_check.COMMITS_PER_CLIENT} commits, replayed into stock in our order)")
    finally:
        stop_all()
        if args.keep or failed:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    mode = "server-side ducklake_commit" if args.server_commit else "client-side commits"
    total = len(names) + (1 if n_process else 0)
    print(f"quack conformance ({mode}): {total - failed}/{total} sessions identical to stock")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
