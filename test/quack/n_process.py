"""N stock DuckDB 1.5.5 client *processes* inserting into one table at once through the server-side
`ducklake_commit` (issue 12's end-to-end obligation, docs/decisions/0260-staged-commit.md): every commit
lands, no client sees an error, the row ids are dense; then the same commits are replayed, one commit per
snapshot in the order ducklake-edge chose, into a stock DuckDB Quack server (client-side commits), and the
`ducklake_*` rows of both catalogs must match row for row (`run.compare_catalogs`). Last, a stock client
makes the same Quack round trips per commit against ducklake-edge as against a stock server with `ducklake`
loaded (`same_round_trips`, counted from DuckDB's own Quack log).

The clients start together behind an explicit gate (each ATTACHes, says `ready`, and waits for `go` on its
stdin); each runs under `timeout`, in its own process group, killed when the run ends (`run.STARTED`).
Run by `run.py --server-commit` (`npm run test:quack`), or alone: `run.py --server-commit --session n-process-commits`.
"""
import json, os, re, subprocess, sys

import run as suite

NAME = "n-process-commits"
CLIENTS = 8
COMMITS_PER_CLIENT = 6
# Bounds: one client's whole life (attach, its commits), and the wait for all of them to be ready.
CLIENT_TIMEOUT_S = 240

CLIENT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import run as suite
secret, attach, data, me, k = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
con = suite.connect()
con.execute("SET enable_progress_bar = false")  # its output would be read as the gate's line
con.execute(secret)
con.execute(f"ATTACH '{attach}' AS lake (DATA_PATH '{data}')")
print("ready", flush=True)
sys.stdin.readline()
errors = []
for i in range(k):
    try:
        con.execute(f"INSERT INTO lake.t VALUES ({me}, {i}, 'c{me}-{i}')")
    except Exception as e:
        errors.append(f"{type(e).__name__}: {str(e)[:300]}")
print(json.dumps({"errors": errors}), flush=True)
"""


def run_clients(n, k, secret, attach, data):
    procs = [subprocess.Popen(["timeout", str(CLIENT_TIMEOUT_S), sys.executable, "-c", CLIENT, suite.HERE, secret,
                               attach, data, str(me), str(k)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
             for me in range(n)]
    suite.STARTED.extend(procs)
    problems = []
    ready = [p.stdout.readline() for p in procs]  # the gate: every client attached
    if ready != ["ready\n"] * n:
        return [{"check": "clients attach", "got": ready,
                 "stderr": [p.communicate(timeout=CLIENT_TIMEOUT_S)[1][-300:] for p in procs]}]
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for me, p in enumerate(procs):
        out, err = p.communicate(timeout=CLIENT_TIMEOUT_S)
        try:
            errors = json.loads(out.strip().splitlines()[-1])["errors"]
        except (ValueError, IndexError, KeyError):
            errors = [f"client died ({p.returncode}): {err[-300:]}"]
        if errors:
            problems.append({"check": f"client {me} commits without an error", "errors": errors})
    return problems


# Commits each side makes for the round-trip count, once its catalog is loaded.
TRIP_COMMITS = 4
DIGITS = re.compile(r"\d+")


def trips_per_commit(con, k):
    """The Quack round trips a stock client makes for each of `k` single-row INSERT commits: (message, the
    statement's first 60 characters with numbers blanked) per request, in order."""
    con.execute("CALL enable_logging('Quack')")
    for i in range(k):
        con.execute(f"INSERT INTO lake.t VALUES (-2, {i}, 'trip')")
    con.execute("CALL disable_logging()")
    rows = con.execute("SELECT message_type, query FROM duckdb_logs_parsed('Quack') ORDER BY timestamp").fetchall()
    con.execute("CALL truncate_duckdb_logs()")
    return [(m, DIGITS.sub("#", " ".join((q or "").split()))[:60]) for m, q in rows]


def same_round_trips(edge_con, take_port, work):
    """A stock client sends exactly the requests per commit against ducklake-edge that it sends against a
    stock Quack server with `ducklake` loaded (server-side commit): no catalog reload, retry or extra FETCH
    that stock does not cause (docs/decisions/0268-quack-client-cpu.md)."""
    port = take_port()
    server = suite.connect(f"{work}/{NAME}-trips-meta.duckdb", load=("httpfs", "quack", "ducklake"))
    con = None
    try:
        server.execute(f"CALL quack_serve('quack:127.0.0.1:{port}', token => '{suite.STOCK_TOKEN}')")
        con = suite.connect()
        con.execute(f"CREATE SECRET (TYPE quack, TOKEN '{suite.STOCK_TOKEN}', SCOPE 'quack:127.0.0.1:{port}')")
        con.execute(f"ATTACH 'ducklake:quack:127.0.0.1:{port}' AS lake (DATA_PATH '{work}/{NAME}-trips-data/')")
        con.execute("CREATE TABLE lake.t (w INTEGER, i INTEGER, s VARCHAR)")
        con.execute("INSERT INTO lake.t VALUES (-1, -1, 'warm')")  # the catalog loaded, as on the edge
        stock_trips = trips_per_commit(con, TRIP_COMMITS)
        edge_trips = trips_per_commit(edge_con, TRIP_COMMITS)
        if edge_trips != stock_trips or len(edge_trips) == 0:
            return [{"check": f"the same Quack round trips for {TRIP_COMMITS} commits as stock + ducklake",
                     "edge": edge_trips, "stock": stock_trips}]
        return []
    finally:
        if con is not None:
            con.close()
        try:
            server.execute(f"CALL quack_stop('quack:127.0.0.1:{port}')")
        except Exception:
            pass
        server.close()
        take_port.release(port)


def check(edge_port, take_port, work):
    lake = f"conf-{NAME}"
    dirs = {"edge": f"{work}/{NAME}-data-e/", "stock": f"{work}/{NAME}-data-s/"}
    stock_port = take_port()
    stock = suite.StockServer(f"{work}/{NAME}-stock-meta.duckdb", stock_port)
    secrets = {
        "edge": f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{suite.DEV_TOKEN}', SCOPE 'quack:127.0.0.1:{edge_port}/{lake}')",
        "stock": f"CREATE SECRET (TYPE quack, TOKEN '{suite.STOCK_TOKEN}', SCOPE 'quack:127.0.0.1:{stock_port}')",
    }
    attach = {"edge": f"ducklake:quack:127.0.0.1:{edge_port}/{lake}", "stock": f"ducklake:quack:127.0.0.1:{stock_port}"}
    cons = {}
    try:
        for side in ("edge", "stock"):
            cons[side] = suite.connect()
            cons[side].execute(secrets[side])
            cons[side].execute(f"ATTACH '{attach[side]}' AS lake (DATA_PATH '{dirs[side]}')")
            # Job 1 (on by default, docs/decisions/0323-maintenance-defaults.md) flushes a table's inlined rows
            # once they pass data_inlining_row_limit (10), mid-run and on the edge only. A limit above the run's
            # rows, set on both sides with DuckLake's own option, keeps the catalogs comparable row for row.
            cons[side].execute(f"CALL lake.set_option('data_inlining_row_limit', {CLIENTS * COMMITS_PER_CLIENT * 4})")
            cons[side].execute("CREATE TABLE lake.t (w INTEGER, i INTEGER, s VARCHAR)")
        problems = run_clients(CLIENTS, COMMITS_PER_CLIENT, secrets["edge"], attach["edge"], dirs["edge"])
        if problems:
            return problems
        # Every commit landed, each its own snapshot, the row ids dense (one inlined table: no schema change).
        cols, rows = suite.edge_rows(edge_port, lake, "ducklake_inlined_data_1_1")
        if cols is None:
            return [{"check": "the inlined rows", "got": rows}]
        got = sorted((dict(zip(cols, r)) for r in rows), key=lambda r: r["row_id"])
        total = CLIENTS * COMMITS_PER_CLIENT
        if [r["row_id"] for r in got] != list(range(total)):
            problems.append({"check": "row ids dense", "got": [r["row_id"] for r in got]})
        by_snapshot = {}
        for r in got:
            by_snapshot.setdefault(r["begin_snapshot"], []).append(r)
        if sorted(len(v) for v in by_snapshot.values()) != [1] * total:
            problems.append({"check": "one snapshot per commit", "got": {k: len(v) for k, v in by_snapshot.items()}})
        if problems:
            return problems
        # The same commits, in the order ducklake-edge chose, into stock.
        for snap in sorted(by_snapshot):
            (r,) = by_snapshot[snap]
            s = r["s"].replace("'", "''")
            cons["stock"].execute(f"INSERT INTO lake.t VALUES ({r['w']}, {r['i']}, '{s}')")
        for side in ("edge", "stock"):
            n = cons[side].execute("SELECT count(*) FROM lake.t").fetchone()[0]
            if n != total:
                problems.append({"check": f"{side} holds every row", "got": n})
        if not problems:
            problems += suite.compare_catalogs(stock, edge_port, lake, list(dirs.values()), {})
        if not problems:
            problems += same_round_trips(cons["edge"], take_port, work)
        return problems
    finally:
        for c in cons.values():
            c.close()
        stock.stop()
        take_port.release(stock_port)
