"""DuckLake PR #1191's workload over Quack, side by side and interleaved: N stock DuckDB 1.5.5 client
processes, each committing single-row INSERTs into one table for a fixed time, against (a) ducklake-edge
(`wrangler dev --local`, server-side `ducklake_commit` batched by the writer), (b) a stock DuckDB Quack
server with `ducklake` loaded (server-side retrial) and (c) the same without it (client-side retrial).
Per target and N: committed tx/s, failed transactions, commit latency p50/p99, and for (a) commits per
WAL PUT (the writer's metrics route). Used by bench/quack-commit.bench.ts; prints one JSON object
({"rows": [...]}) on stdout. Every process it starts is killed when it ends (test/quack/run.py).

    python3 bench/quack-commit.py [--quick] [--clients 16,64] [--targets ab] [--wrangler-dev]

(a) runs under Miniflare directly (bench/quack-serve.ts), not behind `wrangler dev`'s ProxyWorker, whose
extra hop answers POSTs 503 under 64 concurrent clients; `--wrangler-dev` measures it behind wrangler dev.

Where the time goes (per target and N, over the measured window): client CPU ms per commit (the client
processes' own CPU), server CPU ms per commit (for (a) every process of `wrangler dev`, workerd included;
for (b)/(c) this process, which hosts the stock server), the machine's busy share of its cores (other
users of the machine included), and for (a) Quack round trips per commit and their Worker time (the
Worker's request log), and the writer's own phases per commit (queue, submit, durability: its metrics).
"""
import calendar, json, os, re, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "quack"))
import run as suite  # noqa: E402

QUICK = "--quick" in sys.argv


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


CLIENTS = [int(n) for n in arg("--clients", "1,16,64").split(",")]
TARGETS = [t for t in ("a: ducklake-edge", "b: stock + ducklake", "c: stock, no ducklake") if t[0] in arg("--targets", "abc")]
DURATION_S = 5 if QUICK else 20
# Clients commit from the gate on; the measured window opens after a warm-up of about one commit's
# latency (measured on 2 cores: 5 s at 16 clients, 20-23 s at 64), so it sees the steady state, not the
# first commits still in flight. At 64 the window is at least LONG_WINDOW_S: one commit outlasts 5 s.
WARMUP_S = {1: 0, 16: 10, 64: 25}
LONG_WINDOW_S = 20


def warmup_s(n):
    return max(v for k, v in WARMUP_S.items() if k <= n)


def window_s(n):
    return max(DURATION_S, LONG_WINDOW_S) if n >= 64 else DURATION_S
# The window opens when every client has ATTACHed (each says `ready`, then reads the window on stdin): 64
# DuckDB processes starting on 2 cores take longer than any fixed grace. Bounds: the wait for all of them
# to be ready, then each client's remaining life; an ATTACH that fails is a failed transaction.
READY_TIMEOUT_S = 600
CLIENT_TIMEOUT_S = 300
# Between the last `ready` and the window's opening: every client has read its line.
OPEN_MARGIN_S = 1.0
# The clients' DuckDB `threads` (0: DuckDB's default, one per core). With more than one, a stock client's
# main thread busy-waits while a worker thread holds a Quack read in flight (measured: ~10 ms CPU per commit
# with 1 thread against 150-470 ms with 2, for the same three 1 s reads), so on one machine the clients'
# spin takes cores from the server under test in proportion to its read latency
# (docs/decisions/0268-quack-client-cpu.md). `QUACK_BENCH_CLIENT_THREADS=1` measures without it.
CLIENT_THREADS = int(os.environ.get("QUACK_BENCH_CLIENT_THREADS", "0"))

CLIENT = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import run as suite
secret, attach, data, me, threads = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
con = suite.connect()
con.execute("SET enable_progress_bar = false")  # its output would be read as the gate's line
if threads > 0:
    con.execute(f"SET threads = {threads}")
con.execute(secret)
con.execute(f"ATTACH '{attach}' AS lake (DATA_PATH '{data}')")
print("ready", flush=True)
start, end = (float(x) for x in sys.stdin.readline().split())
while time.time() < start:
    time.sleep(0.005)
ok, failed, lat, errors, done = 0, 0, [], [], []
i = 0
con.execute("CALL enable_logging('Quack')")  # every Quack round trip of the run, with its wait
cpu0 = time.process_time()
while time.time() < end:
    t0 = time.perf_counter()
    try:
        con.execute(f"INSERT INTO lake.t VALUES ({me}, {i})")
        ok += 1
        done.append(time.time())
        lat.append((time.perf_counter() - t0) * 1000)
    except Exception as e:  # a failed transaction: counted, reported, the client goes on
        failed += 1
        if len(errors) < 3:
            errors.append(str(e)[:300])
    i += 1
cpu_s = time.process_time() - cpu0
con.execute("CALL disable_logging()")
# The round trips by kind: the commit (the staged batch, or a client-side batch) and every other one (reads).
trips = con.execute(
    "SELECT query LIKE '%ducklake_staged_%' OR query ILIKE 'INSERT%' OR query ILIKE 'UPDATE%' "
    "OR query ILIKE 'DELETE%' AS is_commit, count(*), coalesce(sum(duration_ms), 0) "
    "FROM duckdb_logs_parsed('Quack') WHERE message_type = 'PREPARE_REQUEST' GROUP BY ALL").fetchall()
print(json.dumps({"ok": ok, "failed": failed, "lat": lat, "errors": errors, "cpu_s": cpu_s, "done": done,
                  "trips": {("commit" if c else "read"): [int(n), float(ms)] for c, n, ms in trips}}))
"""


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(p / 100 * len(xs)))], 1)


def edge_metrics(port, lake):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/lakes/{lake}/metrics",
                                 headers={"authorization": f"Bearer {suite.DEV_TOKEN}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        m = json.load(r)["metrics"]
    return {"since": m["since"], "commits": m["commits"]["ok"], "puts": m["flushes"],
            "phase_ms": {k: h["sum"] for k, h in m["latencyMs"].items()}, "batches": m["batches"]["count"]}


TICK = os.sysconf("SC_CLK_TCK")
SERVER_PGID = {"pgid": None}  # wrangler dev's process group, for (a)'s server CPU


def group_cpu_s(pgid):
    """CPU seconds (user + system) of every live process in a process group (wrangler, workerd, …)."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # field 5 of stat: pgrp
            total += int(fields[11]) + int(fields[12])
    return total / TICK


def machine_busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def cpu_now():
    return {"server_a": group_cpu_s(SERVER_PGID["pgid"]) if SERVER_PGID["pgid"] else 0.0,
            "self": sum(os.times()[:2]), "machine": machine_busy()}


REQUEST_RE = re.compile(r'^\{"level":"info","time":"([^"]+)","msg":"request".*"route":"/quack".*"status":(\d+),"durationMs":(\d+)')


def worker_requests(log_path, start, end):
    """The Worker's /quack requests that ended inside the window: count, total ms, non-200 count."""
    n, ms, bad = 0, 0, 0
    with open(log_path) as f:
        for line in f:
            m = REQUEST_RE.match(line)
            if not m:
                continue
            t = calendar.timegm(time.strptime(m.group(1)[:19], "%Y-%m-%dT%H:%M:%S")) + float("0" + m.group(1)[19:-1])
            if start <= t <= end:
                n += 1
                ms += int(m.group(3))
                bad += m.group(2) != "200"
    return n, ms, bad


def run_clients(n, secret, attach, data, on_open, warmup, duration):
    procs = [subprocess.Popen(["timeout", str(READY_TIMEOUT_S + CLIENT_TIMEOUT_S), sys.executable, "-c", CLIENT,
                               os.path.join(HERE, "..", "test", "quack"), secret, attach, data, str(k), str(CLIENT_THREADS)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
             for k in range(n)]
    suite.STARTED.extend(procs)
    ok, failed, lat, errors, cpu, in_window = 0, 0, [], [], 0.0, 0
    trips = {"read": [0, 0.0], "commit": [0, 0.0]}
    t0 = time.time()
    alive = [p for p in procs if p.stdout.readline() == "ready\n"]  # the gate: every client attached
    attach_s = time.time() - t0
    start = time.time() + OPEN_MARGIN_S
    opens = start + warmup
    end = opens + duration
    for p in alive:
        p.stdin.write(f"{start} {end}\n")
        p.stdin.flush()
    window = {"start": opens, "end": end, "cpu0": None, "attach_s": attach_s}
    while time.time() < opens:  # the window's first readings, taken as it opens
        time.sleep(0.01)
    window["before"] = on_open()
    window["cpu0"] = cpu_now()
    while time.time() < end:
        time.sleep(0.05)
    window["cpu1"] = cpu_now()
    window["after"] = on_open()
    for p in procs:
        out, err = p.communicate(timeout=CLIENT_TIMEOUT_S)
        try:
            r = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            failed += 1
            errors.append(f"client died: {err[-1200:]}")
            continue
        ok += r["ok"]
        failed += r["failed"]
        lat += r["lat"]
        errors += r["errors"]
        cpu += r["cpu_s"]
        in_window += sum(1 for t in r["done"] if opens <= t <= end)
        for kind, (count, ms) in r["trips"].items():
            trips[kind][0] += count
            trips[kind][1] += ms
    window["client_cpu_s"] = cpu
    window["in_window"] = in_window
    window["trips"] = trips
    return ok, failed, lat, errors, window


def start_edge(port, work, extra=()):
    """The Worker under Miniflare directly (bench/quack-serve.ts: wrangler dev's ProxyWorker answers POSTs
    503 under 64 concurrent clients), the bundle `wrangler deploy` builds; ready when it answers GET /.
    `extra`: more arguments for quack-serve.ts (NAME=value vars, `--node-port N`)."""
    bundle = f"{work}/bundle"
    subprocess.run(["timeout", "300", "npx", "wrangler", "deploy", "--dry-run", "--outdir", bundle], cwd=suite.ROOT,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    log_path = f"{work}/wrangler.log"
    cmd = ["timeout", str(suite.RUN_TIMEOUT_S * 4), "npx", "tsx", "bench/quack-serve.ts", bundle, str(port),
           f"{work}/state", "DEV_AUTH=enabled", f"DEV_TOKEN={suite.DEV_TOKEN}", "QUACK_SERVER_COMMIT=enabled", *extra]
    p = subprocess.Popen(cmd, cwd=suite.ROOT, stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    suite.STARTED.append(p)
    deadline = time.time() + suite.WRANGLER_READY_S
    while time.time() < deadline:
        if p.poll() is not None:
            raise RuntimeError(f"quack-serve exited ({p.returncode}); see {log_path}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                if r.status == 200:
                    return p
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"quack-serve not ready after {suite.WRANGLER_READY_S}s; see {log_path}")


def main():
    take = suite.port_source()
    work = tempfile.mkdtemp(prefix="quack-commit-bench-")
    edge_port, inspector = take(), take()
    rows = []
    try:
        if "--wrangler-dev" in sys.argv:  # as before: behind wrangler dev's ProxyWorker
            server = suite.start_wrangler(edge_port, inspector, f"{work}/wrangler-state", f"{work}/wrangler.log",
                                          server_commit=True)
        else:
            server = start_edge(edge_port, work)
        SERVER_PGID["pgid"] = os.getpgid(server.pid)
        for n in CLIENTS:
            for target in TARGETS:
                tag = f"{target[0]}{n}"
                data = f"{work}/{tag}-data/"
                stock = None
                if target.startswith("a"):
                    lake = f"bench-commit-{tag}"
                    secret = (f"CREATE SECRET (TYPE quack, TOKEN '{lake}:{suite.DEV_TOKEN}', "
                              f"SCOPE 'quack:127.0.0.1:{edge_port}/{lake}')")
                    attach = f"ducklake:quack:127.0.0.1:{edge_port}/{lake}"
                else:
                    port = take()
                    load = ("httpfs", "quack", "ducklake") if target.startswith("b") else ("httpfs", "quack")
                    con = suite.connect(f"{work}/{tag}.duckdb", load=load)
                    con.execute(f"CALL quack_serve('quack:127.0.0.1:{port}', token => '{suite.STOCK_TOKEN}')")
                    stock = (con, port)
                    secret = f"CREATE SECRET (TYPE quack, TOKEN '{suite.STOCK_TOKEN}', SCOPE 'quack:127.0.0.1:{port}')"
                    attach = f"ducklake:quack:127.0.0.1:{port}"
                setup = suite.connect()
                setup.execute(secret)
                setup.execute(f"ATTACH '{attach}' AS lake (DATA_PATH '{data}')")
                setup.execute("CREATE TABLE lake.t (w INTEGER, i INTEGER)")
                setup.execute("INSERT INTO lake.t VALUES (-1, -1)")
                is_edge = target.startswith("a")
                ok, failed, lat, errors, w = run_clients(
                    n, secret, attach, data, lambda: edge_metrics(edge_port, lake) if is_edge else None, warmup_s(n), window_s(n))
                before = w["before"]
                # tx/s: commits that completed inside the window (a commit begun in it may end after it).
                row = {"clients": n, "target": target, "warm-up s": warmup_s(n), "window s": window_s(n), "tx/s": round(w["in_window"] / window_s(n), 1), "committed": ok,
                       "failed tx": failed, "p50 ms": pct(lat, 50), "p99 ms": pct(lat, 99)}
                per = max(w["in_window"], 1)  # the window's commits, for what is measured over the window
                c0, c1 = w["cpu0"], w["cpu1"]
                server_cpu = c1["server_a"] - c0["server_a"] if target.startswith("a") else c1["self"] - c0["self"]
                busy = (c1["machine"][0] - c0["machine"][0]) / max(1, c1["machine"][1] - c0["machine"][1])
                row["client CPU ms/commit"] = round(w["client_cpu_s"] * 1000 / max(ok, 1), 1)  # whole run
                row["server CPU ms/commit"] = round(server_cpu * 1000 / per, 1)
                row["machine busy %"] = round(busy * 100)
                row["all attached after s"] = round(w["attach_s"], 1)
                # The client's side of each commit's cycle (whole run): its round trips by kind and their waits.
                reads, commit_trips = w["trips"]["read"], w["trips"]["commit"]
                row["client reads/commit"] = round(reads[0] / max(ok, 1), 2)
                row["client read wait ms/commit"] = round(reads[1] / max(ok, 1), 1)
                row["client commit wait ms/commit"] = round(commit_trips[1] / max(ok, 1), 1)
                if before is not None:
                    after = w["after"]
                    if after["since"] != before["since"]:  # the writer restarted: its counters began at zero
                        before = {"commits": 0, "puts": 0, "batches": 0, "phase_ms": {k: 0 for k in after["phase_ms"]}}
                    commits = after["commits"] - before["commits"]
                    puts = after["puts"] - before["puts"]
                    row["commits/WAL PUT"] = round(commits / puts, 1) if puts > 0 else None
                    row["commits/batch"] = round(commits / max(1, after["batches"] - before["batches"]), 1)
                    for k in ("queue", "submit", "durability", "total"):
                        row[f"writer {k} ms/commit"] = round(
                            (after["phase_ms"][k] - before["phase_ms"][k]) / max(1, commits), 1)
                    row["writer commits in window"] = commits
                    reqs, req_ms, bad = worker_requests(f"{work}/wrangler.log", w["start"], w["end"])
                    row["Quack requests/commit"] = round(reqs / per, 1)
                    row["Worker ms/request"] = round(req_ms / max(1, reqs), 1)
                    row["non-200 requests"] = bad
                count = setup.execute("SELECT count(*) FROM lake.t").fetchone()[0]
                row["rows"] = count
                if errors:
                    row["first error"] = errors[0][-700:]
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                setup.close()
                if stock:
                    try:
                        stock[0].execute(f"CALL quack_stop('quack:127.0.0.1:{stock[1]}')")
                    except Exception:
                        pass
                    stock[0].close()
                    take.release(stock[1])
    finally:
        suite.stop_all()
    print(json.dumps({"duration_s": DURATION_S, "client_threads": CLIENT_THREADS, "rows": rows}))


if __name__ == "__main__":
    main()
