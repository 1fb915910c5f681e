"""The README's "DuckDB over Quack" quick start, exactly as written, against a fresh `npm start`
(tools/start.mjs with its documented dev token): every statement of the README's SQL block is run by a
stock DuckDB 1.5.5 client and the answers are checked (the secret, ATTACH of a new lake, CREATE TABLE,
INSERT, SELECT, time travel, snapshots()), then `GET /v1/lakes/shop/quack` is checked to answer the same
two statements for the caller's host. Only the port (8787 → a free one) and the DATA_PATH directory (a
fresh temporary one) are substituted. Installs the pinned extensions first, as the README says
(tools/duckdb-extensions.py). Every process it starts is killed when it ends (test/quack/run.py).

    python3 tools/readme-quack-check.py      # QUACK_TEST_PORTS=first-last to choose the ports
"""
import json, os, re, subprocess, sys, tempfile, time, urllib.error, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "quack"))
sys.path.insert(0, HERE)
import run as suite  # noqa: E402
import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location("duckdb_extensions", os.path.join(HERE, "duckdb-extensions.py"))
extensions = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(extensions)

import duckdb  # noqa: E402

README_TOKEN = "dev-token-change-me"


def readme_sql():
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text.split("## DuckDB over Quack", 1)[1]
    block = section.split("```sql", 1)[1].split("```", 1)[0]
    lines = "\n".join(line.split("--")[0] for line in block.splitlines())
    return [s.strip() for s in lines.split(";") if s.strip()]


def start_server(port, inspector, state, log_path):
    cmd = ["timeout", str(suite.RUN_TIMEOUT_S), "node", "tools/start.mjs", "--ip", "127.0.0.1", "--port", str(port),
           "--inspector-port", str(inspector), "--persist-to", state, "--show-interactive-dev-session=false"]
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    suite.STARTED.append(p)
    deadline = time.time() + suite.WRANGLER_READY_S
    while time.time() < deadline:
        if p.poll() is not None:
            raise RuntimeError(f"npm start exited ({p.returncode}); see {log_path}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.5)
    raise RuntimeError(f"npm start not ready after {suite.WRANGLER_READY_S}s; see {log_path}")


def main():
    extensions.main()
    take = suite.port_source()
    port, inspector = take(), take()
    work = tempfile.mkdtemp(prefix="readme-quack-")
    start_server(port, inspector, f"{work}/state", f"{work}/start.log")
    statements = [s.replace("localhost:8787", f"localhost:{port}").replace("/tmp/shop-data/", f"{work}/shop-data/")
                  for s in readme_sql()]
    con = duckdb.connect()
    answers = []
    for stmt in statements:
        try:
            answers.append(con.execute(stmt).fetchall())
        except duckdb.Error as e:
            sys.exit(f"README statement failed: {stmt}\n  {e}")
        print(f"ok: {stmt[:100]}")
    selects = [a for s, a in zip(statements, answers) if s.upper().startswith("SELECT * FROM SHOP.ORDERS")]
    expected = [(1, "apple"), (2, "pear")]
    problems = []
    if selects != [expected, expected]:
        problems.append(f"SELECT / time travel answered {selects}, expected {expected} twice")
    now = con.execute("SELECT * FROM shop.orders ORDER BY id").fetchall()
    if now != expected + [(3, "plum")]:
        problems.append(f"after the second INSERT the table holds {now}")
    snapshots = answers[-1] if statements[-1].upper().startswith("FROM SHOP.SNAPSHOTS") else []
    if [r[0] for r in snapshots] != [0, 1, 2, 3]:
        problems.append(f"snapshots() answered ids {[r[0] for r in snapshots]}, expected 0..3")
    req = urllib.request.Request(f"http://localhost:{port}/v1/lakes/shop/quack",
                                 headers={"authorization": f"Bearer {README_TOKEN}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        recipe = json.load(r)
    scope = f"quack:localhost:{port}/shop"
    if scope not in recipe.get("secret", "") or f"ducklake:quack:localhost:{port}/shop" not in recipe.get("attach", ""):
        problems.append(f"GET /v1/lakes/shop/quack answered {recipe}")
    if not re.search(r"TOKEN 'shop:<token>'", recipe.get("secret", "")):
        problems.append(f"the recipe's secret does not carry the <token> placeholder: {recipe}")
    con.close()
    if problems:
        sys.exit("README quick start: " + "; ".join(problems))
    print(f"README quick start: {len(statements)} statements as documented; GET /quack answers for this host")


if __name__ == "__main__":
    try:
        main()
    finally:
        suite.stop_all()
