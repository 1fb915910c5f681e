"""How stock DuckDB httpfs reports a data read with no token, a bad token and the dev token.

Usage: start the API (`npm start -- --port 9101`), then
    python3 tools/httpfs-auth-check.py http://127.0.0.1:9101 dev-token-change-me
It creates lake `httpfs-check`, uploads test/fixtures/orders-1.parquet and reads it with
read_parquet over HTTP three ways. Needs duckdb==1.5.5 and duckdb-extension-httpfs==1.5.5 (PyPI).
See docs/decisions/0103-auth-answers.md for why the refused reads show as HTTP 0.
"""
import glob
import os
import sys
import urllib.request

import duckdb
import duckdb_extension_httpfs

base, token = sys.argv[1].rstrip("/"), sys.argv[2]
lake = "httpfs-check"
fixture = os.path.join(os.path.dirname(__file__), "..", "test", "fixtures", "orders-1.parquet")


def send(method, path, body=None):
    req = urllib.request.Request(base + path, data=body, method=method, headers={"authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req) as res:
            return res.status
    except urllib.error.HTTPError as e:
        return e.code


print("create lake:", send("PUT", f"/v1/lakes/{lake}"))
with open(fixture, "rb") as f:
    print("upload:", send("PUT", f"/v1/lakes/{lake}/data/o.parquet", f.read()))

ext = glob.glob(
    os.path.dirname(duckdb_extension_httpfs.__file__) + f"/extensions/v{duckdb.__version__}/httpfs.duckdb_extension"
)[0]
url = f"{base}/v1/lakes/{lake}/data/o.parquet"
for label, secret in [("no token", None), ("bad token", "not-a-token-0123456789"), ("dev token", token)]:
    con = duckdb.connect(config={"allow_unsigned_extensions": "true", "autoinstall_known_extensions": "false"})
    con.execute(f"LOAD '{ext}'")
    con.execute("SET http_retries = 0")
    if secret:
        con.execute(f"CREATE SECRET s (TYPE http, BEARER_TOKEN '{secret}')")
    try:
        print(f"{label}: rows =", con.execute(f"SELECT count(*) FROM read_parquet('{url}')").fetchone()[0])
    except Exception as e:  # noqa: BLE001 - the message is what this tool reports
        print(f"{label}: {str(e).splitlines()[0]}")
