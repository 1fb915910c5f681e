"""DuckLake sessions the conformance suite runs through stock DuckDB 1.5.5 clients against both servers.

Each session is a list of statements run in order by one client; `{attach}` is the side's ATTACH target
(`ducklake:quack:127.0.0.1:<port>[/<lake>]`) and `{data}` the side's data directory. A session is listed
here only when it passes against ducklake-edge; statements that do not work yet are named in the report
of the change that added the suite, not committed as passing.
"""

ATTACH = "ATTACH '{attach}' AS lake (DATA_PATH '{data}')"

SESSIONS = {
    # A new lake: the catalog load, DuckLake's initialisation batch (lake creation by an admin token),
    # the server-commit probe, a table and inlined inserts (the commit batches).
    "create-and-insert": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a')",
        "INSERT INTO lake.t VALUES (2, 'b'), (3, NULL)",
    ],
    # Schemas and several tables, each CREATE its own commit.
    "schemas-and-tables": [
        ATTACH,
        "CREATE SCHEMA lake.s1",
        "CREATE TABLE lake.s1.a (x BIGINT, y DOUBLE, z BOOLEAN)",
        "CREATE TABLE lake.s1.b (d DATE, ts TIMESTAMP, dec DECIMAL(10, 2), u UUID, bl BLOB)",
        "CREATE TABLE lake.main.c (l INTEGER[], st STRUCT(k VARCHAR, v INTEGER), m MAP(VARCHAR, INTEGER))",
    ],
}
