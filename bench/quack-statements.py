"""Issue 28's statements side by side, interleaved in one run: stock DuckDB 1.5.5 clients against
(a) ducklake-edge in workerd (bench/quack-serve.ts: Miniflare, the bundle `wrangler deploy` builds),
(n) the same `createApp()` served from Node over the same R2 and writers (`--node-port`: Node's clock runs
during CPU work, workerd's does not), and (s) a stock DuckDB Quack server with `ducklake` loaded
(test/ducklake-suite/stock_server.py), each behind a counting proxy (bench/quack-wire.py). Both edge servers
run with REQUEST_TIMING=enabled, so every answer's `Server-Timing` splits its time into phases
(docs/decisions/0640-quack-request-timing.md).

Statements, on a table of ROWS rows (one data file), every rep on every side in rotating order: a single-row
INSERT, `SELECT count(*)`, a point filter, `count(*) FROM lake.snapshots()`, time travel `AT (VERSION => 2)`
and an ATTACH of the existing lake on a new connection. Per statement and side: Quack requests, median and
p99 ms, the server process CPU per statement (mean; edge: its whole process group) and (edge) the
median per-phase ms summed over the statement's requests. `GET /` (a route that does
nothing) gives each server's own request overhead. Beside them (decision 0762), the INSERT's commit request
(the one with a `writer` phase) and an HTTP verb commit of the same row, one per rep, interleaved. Prints one
JSON object ({"rows": [...]}) on stdout.

    python3 bench/quack-statements.py [--quick]
"""
import importlib.util, json, os, statistics, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "quack"))
import run as suite  # noqa: E402


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


wire = load("quack_wire", "quack-wire.py")
commit_bench = load("quack_commit", "quack-commit.py")

QUICK = "--quick" in sys.argv
REPS = 7 if QUICK else 31
ROWS = 10_000 if QUICK else 100_000
NOOP_REPS = 20 if QUICK else 100
STATEMENTS = [
    ("INSERT one row", lambda con, rep: con.execute(f"INSERT INTO lake.t VALUES ({-rep - 1}, 'new')").fetchall()),
    ("SELECT count(*)", lambda con, rep: con.execute("SELECT count(*) FROM lake.t").fetchall()),
    ("point filter i = 77", lambda con, rep: con.execute("SELECT * FROM lake.t WHERE i = 77").fetchall()),
    ("count(*) FROM snapshots()", lambda con, rep: con.execute("SELECT count(*) FROM lake.snapshots()").fetchall()),
    ("time travel AT (VERSION => 2)",
     lambda con, rep: con.execute("SELECT count(*) FROM lake.t AT (VERSION => 2)").fetchall()),
]
PHASES = ["body", "auth", "parse", "cut", "store", "eval", "encode", "writer", "total"]


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def start_stock(port):
    p = subprocess.Popen(["timeout", str(suite.RUN_TIMEOUT_S * 4), sys.executable,
                          os.path.join(suite.ROOT, "test", "ducklake-suite", "stock_server.py"), str(port),
                          suite.STOCK_TOKEN], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, start_new_session=True, text=True)
    suite.STARTED.append(p)
    line = p.stdout.readline()
    if not line.startswith("serving"):
        raise RuntimeError(f"stock server did not start: {line!r}")
    return p


def process_cpu_s(pid):
    """CPU seconds (user + system) of one process and its children's live processes in its group."""
    return commit_bench.group_cpu_s(os.getpgid(pid))


def noop_ms(port):
    xs = []
    for _ in range(NOOP_REPS):
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as r:
            r.read()
        xs.append((time.perf_counter() - t0) * 1000)
    return statistics.median(xs)


def http_verb_commit(port, lake, rep):
    """The same one-row insert as the Quack INSERT, committed through the HTTP verb door
    (`POST /v1/lakes/{lake}/commits`, an `inline_insert` verb) straight to the edge's port: its ms."""
    body = json.dumps({"verbs": [{"op": "inline_insert", "table": {"name": "t"},
                                  "rows": [{"i": -1_000_000 - rep, "s": "verb"}]}]}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/lakes/{lake}/commits", data=body, method="POST",
                                 headers={"content-type": "application/json",
                                          "authorization": f"Bearer {suite.DEV_TOKEN}"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=60) as r:
        r.read()
    return (time.perf_counter() - t0) * 1000


def commit_rows(quack_writes, verb_ms):
    """The commit request of the Quack INSERT (the one whose Server-Timing has a `writer` phase) beside an
    HTTP verb commit of the same row: ms at the proxy and, for Quack, its phases (issue 28)."""
    med = statistics.median
    rows = []
    if quack_writes:
        row = {"statement": "commit request only", "side": "edge Quack ducklake_commit",
               "requests": 1, "median ms": round(med(w["ms"] for w in quack_writes), 1),
               "p99 ms": round(pct([w["ms"] for w in quack_writes], 99), 1)}
        for k in PHASES:
            row[k] = round(med(w["phases"].get(k, 0.0) for w in quack_writes), 2)
        rows.append(row)
    if verb_ms:
        rows.append({"statement": "commit request only", "side": "edge HTTP verb commit", "requests": 1,
                     "median ms": round(med(verb_ms), 1), "p99 ms": round(pct(verb_ms, 99), 1)})
    return rows


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def main():
    take = suite.port_source()
    work = tempfile.mkdtemp(prefix="quack-statements-")
    edge_port, node_port, stock_port = take(), take(), take()
    proxies = {"edge": take(), "node": take(), "stock": take()}
    counters = {k: wire.Counter() for k in proxies}
    servers = []
    rows = []
    load_before = loadavg()
    try:
        edge_proc = commit_bench.start_edge(edge_port, work, ("REQUEST_TIMING=enabled", "LOG_LEVEL=warn",
                                                              "--node-port", str(node_port)))
        stock_proc = start_stock(stock_port)
        # Server CPU per statement: the edge's process group (workerd, Miniflare's R2 and the Node door),
        # the stock server's process.
        cpu_of = {"edge": lambda: process_cpu_s(edge_proc.pid), "node": lambda: process_cpu_s(edge_proc.pid),
                  "stock": lambda: process_cpu_s(stock_proc.pid)}
        targets = {"edge": edge_port, "node": node_port, "stock": stock_port}
        for side, port in targets.items():
            servers.append(wire.proxy(proxies[side], port, counters[side]))
        lake = "bench-statements"
        secret = {
            side: (f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{suite.DEV_TOKEN}', "
                   f"SCOPE 'quack:127.0.0.1:{proxies[side]}/{lake}')") for side in ("edge", "node")}
        secret["stock"] = (f"CREATE SECRET (TYPE quack, TOKEN '{suite.STOCK_TOKEN}', "
                           f"SCOPE 'quack:127.0.0.1:{proxies['stock']}')")
        attach = {side: f"ducklake:quack:127.0.0.1:{proxies[side]}/{lake}" for side in ("edge", "node")}
        attach["stock"] = f"ducklake:quack:127.0.0.1:{proxies['stock']}"
        data = {"edge": f"{work}/edge-data/", "stock": f"{work}/stock-data/"}
        data["node"] = data["edge"]  # one lake, two front doors
        # The same history on both lakes: snapshot 1 creates the table, 2 fills it.
        for side in ("edge", "stock"):
            con = suite.connect()
            con.execute(secret[side])
            con.execute(f"ATTACH '{attach[side]}' AS lake (DATA_PATH '{data[side]}')")
            con.execute("CREATE TABLE lake.t (i INTEGER, s VARCHAR)")
            con.execute(f"INSERT INTO lake.t SELECT i, 'row ' || i FROM range({ROWS}) r(i)")
            con.close()
        sessions = {}
        for side in targets:
            con = suite.connect()
            con.execute(secret[side])
            con.execute(f"ATTACH '{attach[side]}' AS lake (DATA_PATH '{data[side]}')")
            sessions[side] = con
        ops = [(name, fn) for name, fn in STATEMENTS] + [("ATTACH (existing lake)", None)]
        samples = {side: {name: [] for name, _ in ops} for side in targets}
        order = list(targets)
        verb_ms = []
        for rep in range(REPS):
            # Interleaved with the statements: the HTTP verb door's commit of the same row (issue 28).
            verb_ms.append(http_verb_commit(edge_port, lake, rep))
            for name, fn in ops:
                order = order[1:] + order[:1]  # rotate who goes first
                for side in order:
                    if name.startswith("INSERT") and side == "node":
                        continue  # one lake behind (a) and (n): (a) does the writes
                    counter = counters[side]
                    if fn is None:
                        con = suite.connect()
                        con.execute(secret[side])
                        run_op = lambda con=con, side=side: con.execute(  # noqa: E731
                            f"ATTACH '{attach[side]}' AS lake2 (DATA_PATH '{data[side]}')")
                    else:
                        con = sessions[side]
                        run_op = lambda con=con, fn=fn, rep=rep: fn(con, rep)  # noqa: E731
                    ph0, req_ms0 = counter.timing()
                    r0 = counter.snapshot()[0]
                    c0 = cpu_of[side]()
                    t0 = time.perf_counter()
                    run_op()
                    ms = (time.perf_counter() - t0) * 1000
                    cpu_ms = (cpu_of[side]() - c0) * 1000
                    ph1, req_ms1 = counter.timing()
                    r1 = counter.snapshot()[0]
                    if fn is None:
                        con.close()
                    samples[side][name].append({
                        "ms": ms, "requests": r1 - r0, "request_ms": req_ms1 - req_ms0, "cpu_ms": cpu_ms,
                        "phases": {k: ph1.get(k, 0.0) - ph0.get(k, 0.0) for k in PHASES}})
        for con in sessions.values():
            con.close()
        noop = {side: round(noop_ms(targets[side]), 2) for side in ("edge", "node")}
        load_after = loadavg()
        med = statistics.median
        for name, _ in ops:
            s = samples["stock"][name]
            stock_med = med(x["ms"] for x in s)
            for side in ("edge", "node", "stock"):
                xs = samples[side][name]
                if not xs:
                    continue
                row = {"statement": name, "side": {"edge": "edge (workerd)", "node": "edge (Node, phases)",
                                                   "stock": "stock server"}[side],
                       "requests": med(x["requests"] for x in xs),
                       "median ms": round(med(x["ms"] for x in xs), 1),
                       "p99 ms": round(pct([x["ms"] for x in xs], 99), 1),
                       "/stock": round(med(x["ms"] for x in xs) / stock_med, 2),
                       "server ms (proxy)": round(med(x["request_ms"] for x in xs), 1),
                       # Clock ticks are 10 ms: the mean over every rep, not a median.
                       "server CPU ms": round(statistics.fmean(x["cpu_ms"] for x in xs), 1)}
                if side != "stock":
                    for k in PHASES:
                        row[k] = round(med(x["phases"][k] for x in xs), 2)
                    row["noop ms/request"] = noop[side]
                rows.append(row)
        rows.extend(commit_rows(counters["edge"].writes, verb_ms))
        rows.append({"statement": "load average (1/5/15 min)", "side": f"before {load_before} / after {load_after}"})
    finally:
        for s in servers:
            s.shutdown()
        suite.stop_all()
    print(json.dumps({"reps": REPS, "rows_in_table": ROWS, "load_before": load_before, "rows": rows}))


if __name__ == "__main__":
    main()
