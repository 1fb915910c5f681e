"""`npm run bench -- data-plane [--quick]` (bench/data-plane.bench.ts runs this): stock DuckDB 1.5.5 against
`wrangler dev` (what `npm start` serves), side by side in one run:

- INSERT … SELECT of N rows into a new table, then a full scan, through the Worker's S3 endpoint (the recipe's
  data secret; the lake's own R2 prefix) and through a local directory (`ATTACH … (DATA_PATH '<dir>')`);
- the Worker's memory (the workerd process's resident set, sampled every 50 ms) while a large object streams
  through the endpoint, up (multipart) and down (ranged GETs), against its size.

Right after each rep's INSERTs, the same Parquet bytes are written into Miniflare's R2 by a bare Worker, by Node
straight through Miniflare's bucket proxy, and received and dropped by a Worker (bench/r2-floor.ts): the floor,
and the endpoint's PutObject time against it. Each INSERT through the endpoint runs twice: with the recipe's data secret as served (no `Expect:
100-continue`, decision 0750) and with that one option removed (what the recipe sent before), so the cost of
curl's 1 s wait for a `100 Continue` workerd never sends is measured beside the rest. Per endpoint row, the
Worker's own log gives the S3 requests the INSERT made (by operation) and the time the Worker spent in them.
Every row carries the load average when it was measured.

Prints one JSON line: {"rows": [...], "params": {...}}. Ports as in test/quack/run.py (QUACK_TEST_PORTS).
"""
import argparse, json, os, subprocess, sys, tempfile, threading, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "quack"))
import run as suite  # noqa: E402
import data_plane as plane  # noqa: E402


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def workerd_pids(group):
    out = subprocess.run(["ps", "-o", "pid=,comm=", "-g", str(group)], capture_output=True, text=True).stdout
    return [int(l.split()[0]) for l in out.splitlines() if "workerd" in l]


def rss_mb(pids):
    total = 0
    for pid in pids:
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


class Sampler:
    """Peak resident set of the workerd processes of a process group, sampled every 50 ms (the group's
    processes are listed again at each sample: wrangler restarts workerd when the Worker's sources change)."""

    def __init__(self, group):
        self.group, self.peak, self.stop = group, 0.0, threading.Event()
        self.t = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_mb(workerd_pids(self.group)))
            time.sleep(0.05)

    def __enter__(self):
        self.peak = rss_mb(workerd_pids(self.group))
        self.t.start()
        return self

    def __exit__(self, *a):
        self.stop.set()
        self.t.join()


def timed(con, sql):
    t = time.perf_counter()
    r = con.execute(sql).fetchall()
    return time.perf_counter() - t, r


# The recipe's option that sends no `Expect: 100-continue` (worker/quack/recipe.ts NO_EXPECT_CONTINUE).
NO_EXPECT = "EXTRA_HTTP_HEADERS MAP {'Expect': ''}, "


def load():
    return round(os.getloadavg()[0], 2)


def s3_log(log_path, since, lake):
    """The Worker's S3 request lines for `lake` written after byte `since`: per operation, count and summed
    durationMs (the Worker's time from the request's headers to its answer, the body's upload included)."""
    ops = {}
    with open(log_path, "rb") as f:
        f.seek(since)
        for raw in f:
            line = raw.decode("utf8", "replace")
            if '"msg":"s3"' not in line:
                continue
            try:
                entry = json.loads(line[line.index("{"):])
            except ValueError:
                continue
            if entry.get("lake") != lake:
                continue
            op = ops.setdefault(entry.get("op") or "refused", [0, 0])
            op[0] += 1
            op[1] += entry.get("durationMs", 0)
    return ops


def s3_summary(ops):
    """`op count×ms, …` and the Worker's ms in uploads (PutObject and UploadPart)."""
    text = ", ".join(f"{k} {v[0]}x{v[1]}ms" for k, v in sorted(ops.items()))
    return text, sum(v[1] for k, v in ops.items() if k in ("PutObject", "UploadPart"))


def ctas_and_scan(con, db, n):
    con.execute(f"CREATE TABLE {db}.t (id BIGINT, s VARCHAR, x DOUBLE)")
    ins, _ = timed(con, f"INSERT INTO {db}.t SELECT i, md5(i::VARCHAR), i * 0.5 FROM range({n}) r(i)")
    scan, r = timed(con, f"SELECT count(*), sum(id), max(s), sum(x) FROM {db}.t")
    if r[0][0] != n:
        raise RuntimeError(f"{db}: read {r[0][0]} rows, wrote {n}")
    return ins, scan


def start_floor(worker_port, node_port, work):
    """bench/r2-floor.ts: a bare Worker over Miniflare's R2 and Node's straight path into it."""
    log_path = f"{work}/r2-floor.log"
    p = subprocess.Popen(["timeout", str(suite.RUN_TIMEOUT_S * 4), "npx", "tsx", "bench/r2-floor.ts", str(worker_port),
                          str(node_port), f"{work}/floor"], cwd=ROOT, stdout=open(log_path, "w"),
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    suite.STARTED.append(p)
    deadline = time.time() + suite.WRANGLER_READY_S
    while time.time() < deadline:
        if p.poll() is not None:
            raise RuntimeError(f"r2-floor exited ({p.returncode}); see {log_path}")
        if "Ready" in open(log_path).read():
            return p
        time.sleep(0.5)
    raise RuntimeError(f"r2-floor not ready; see {log_path}")


def floor_put(port, path, body):
    """PUT `body` to the floor server; its answer is the milliseconds it measured itself."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/{path}", data=body, method="PUT")
    with urllib.request.urlopen(req, timeout=600) as r:
        return int(r.read())


def floor_row(rep, files, worker_port, node_port, endpoint_rows):
    """The INSERT's bytes (the local run's Parquet file: the same rows) written three ways into Miniflare's R2,
    right after the INSERTs of the same rep, and the endpoint's PutObject time against the bare Worker's."""
    body = b"".join(open(f, "rb").read() for f in files)
    worker = floor_put(worker_port, f"put/{rep}-{time.time()}", body)
    sink = floor_put(worker_port, f"sink/{rep}", body)
    direct = floor_put(node_port, f"{rep}-{time.time()}", body)
    row = {"path": "R2 floor (same bytes)", "run": rep + 1, "mb": round(len(body) / 2**20, 1),
           "floor_worker_put_ms": worker, "floor_worker_sink_ms": sink, "floor_direct_put_ms": direct, "load": load()}
    for r in endpoint_rows:
        key = "upload_vs_floor" if r["path"] == "endpoint (R2 prefix)" else "expect_upload_vs_floor"
        row[key] = round(r["worker_upload_ms"] / max(worker, 1), 2)
    return row


def recipe_without_no_expect(port, lake):
    """The recipe's statements with the data secret's no-Expect option removed (the recipe before 0750)."""
    status, recipe = plane.api(port, "GET", f"/v1/lakes/{lake}/quack")
    if status != 200:
        raise RuntimeError(f"GET /v1/lakes/{lake}/quack answered {status} {recipe}")
    if NO_EXPECT not in (recipe["dataSecret"] or ""):
        raise RuntimeError(f"the recipe's data secret no longer carries {NO_EXPECT!r}: {recipe['dataSecret']}")
    con = suite.connect()
    for stmt in recipe["statements"]:
        if not stmt.startswith("LOAD "):
            con.execute(stmt.replace(NO_EXPECT, "").replace("<token>", plane.TOKEN))
    return con


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = 200_000 if args.quick else 1_000_000
    big_mb = [64, 256] if args.quick else [256, 1024]
    take = suite.port_source()
    port, inspector = take(), take()
    work = tempfile.mkdtemp(prefix="bench-data-plane-")
    p = suite.start_wrangler(port, inspector, f"{work}/state", f"{work}/wrangler.log", server_commit=True)
    floor_worker, floor_node = take(), take()
    start_floor(floor_worker, floor_node, work)
    rows = []
    try:
        # Through the endpoint (the recipe as served, then without its no-Expect option) and through a local
        # directory, interleaved twice.
        log_path = f"{work}/wrangler.log"
        for rep in range(2):
            for variant, strip in (("endpoint (R2 prefix)", False), ("endpoint, curl's Expect wait", True)):
                lake = f"ep{rep}" if not strip else f"ex{rep}"
                if strip:
                    con = recipe_without_no_expect(port, lake)
                else:
                    con, _ = plane.recipe_session(port, lake)
                since = os.path.getsize(log_path)
                ins, scan = ctas_and_scan(con, lake, n)
                requests, upload_ms = s3_summary(s3_log(log_path, since, lake))
                fresh = recipe_without_no_expect(port, lake) if strip else plane.recipe_session(port, lake)[0]
                cold, _ = timed(fresh, f"SELECT count(*), sum(id), max(s), sum(x) FROM {lake}.t")
                rows.append({"path": variant, "run": rep + 1, "rows": n, "insert_s": round(ins, 2),
                             "scan_s": round(scan, 2), "scan_new_session_s": round(cold, 2),
                             "s3_requests": requests, "worker_upload_ms": upload_ms, "load": load()})
                log(json.dumps(rows[-1]))
            local = f"lo{rep}"
            d = tempfile.mkdtemp(prefix="bench-data-plane-dir-", dir=work)
            con = suite.connect()
            con.execute(f"CREATE SECRET {local}_q (TYPE quack, TOKEN '{local}:{plane.TOKEN}', SCOPE 'quack:127.0.0.1:{port}/{local}')")
            con.execute(f"ATTACH 'ducklake:quack:127.0.0.1:{port}/{local}' AS {local} (DATA_PATH '{d}/')")
            ins, scan = ctas_and_scan(con, local, n)
            fresh = suite.connect()
            fresh.execute(f"CREATE SECRET {local}_q (TYPE quack, TOKEN '{local}:{plane.TOKEN}', SCOPE 'quack:127.0.0.1:{port}/{local}')")
            fresh.execute(f"ATTACH 'ducklake:quack:127.0.0.1:{port}/{local}' AS {local}")
            cold, _ = timed(fresh, f"SELECT count(*), sum(id), max(s), sum(x) FROM {local}.t")
            files = sorted(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if f.endswith(".parquet"))
            rows.append({"path": "local directory", "run": rep + 1, "rows": n, "insert_s": round(ins, 2),
                         "scan_s": round(scan, 2), "scan_new_session_s": round(cold, 2), "load": load()})
            log(json.dumps(rows[-1]))
            endpoint_rows = [r for r in rows if r["path"].startswith("endpoint") and r["run"] == rep + 1]
            rows.append(floor_row(rep, files, floor_worker, floor_node, endpoint_rows))
            log(json.dumps(rows[-1]))
        for rep in range(2):
            local = next(r for r in rows if r["path"] == "local directory" and r["run"] == rep + 1)
            for r in rows:
                if r["path"].startswith("endpoint") and r["run"] == rep + 1:
                    r["insert_vs_local"] = round(r["insert_s"] / max(local["insert_s"], 0.01), 2)
        # Memory while a large object streams through the endpoint.
        con, _ = plane.recipe_session(port, "ep0")
        con.execute("SET s3_uploader_max_filesize = '50GB'")  # 5 MiB parts
        # Miniflare's local R2 takes seconds per part under httpfs's default 50 parallel part uploads.
        con.execute("SET s3_uploader_thread_limit = 4")
        con.execute("SET http_timeout = 300000")
        for mb in big_mb:
            lines = mb * 1024 * 1024 // 65
            key = f"r2://ducklake-edge/lakes/ep0/data/big-{mb}.csv"
            base = rss_mb(workerd_pids(p.pid))
            with Sampler(p.pid) as up:
                t = time.perf_counter()
                con.execute(f"COPY (SELECT md5(i::VARCHAR) || md5((i * 7)::VARCHAR) AS s FROM range({lines}) r(i)) "
                            f"TO '{key}' (FORMAT csv, HEADER false)")
                up_s = time.perf_counter() - t
            size = con.execute(f"SELECT size FROM read_blob('{key}')").fetchone()[0]
            with Sampler(p.pid) as down:
                t = time.perf_counter()
                got = con.execute(f"SELECT count(*) FROM read_csv('{key}', header = false, columns = {{'s': 'VARCHAR'}})").fetchone()[0]
                down_s = time.perf_counter() - t
            if got != lines:
                raise RuntimeError(f"read {got} lines of {lines}")
            rows.append({"path": "stream through endpoint", "object_mb": round(size / 2**20), "workerd_rss_before_mb": round(base),
                         "peak_rss_upload_mb": round(up.peak), "peak_rss_download_mb": round(down.peak),
                         "growth_upload_mb": round(up.peak - base), "growth_download_mb": round(down.peak - base),
                         "upload_s": round(up_s, 2), "download_s": round(down_s, 2), "load": load()})
            log(json.dumps(rows[-1]))
    finally:
        suite.stop_all()
    print(json.dumps({"rows": rows, "params": {"rows": n, "objects_mb": big_mb, "server": "wrangler dev --local"}}))


if __name__ == "__main__":
    main()
