"""DuckLake sessions the conformance suite runs through stock DuckDB 1.5.5 clients against both servers.

Each session is a list of statements run in order by one client; a tuple `("on", name, sql)` runs `sql` on a
second client of that name (its own connection and ATTACH, so its own transactions; where stock answers
DuckLake's conflict text, the edge must answer it too); a tuple `("parallel", n, sql)` runs `sql` from `n` clients at once (each its own connection and
ATTACH; DuckLake retries a lost commit race). `{attach}` is the side's ATTACH target
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
    # Reads of user data: a scan of inlined rows, a filter, a projection, time travel by version.
    "select-and-time-travel": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
        "SELECT * FROM lake.t ORDER BY id",
        "INSERT INTO lake.t VALUES (3, 'c')",
        "SELECT s FROM lake.t WHERE id >= 2 ORDER BY id",
        "SELECT * FROM lake.t AT (VERSION => 2) ORDER BY id",
        "SELECT count(*) FROM lake.t",
    ],
    "update-delete": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "UPDATE lake.t SET s = 'B' WHERE id = 2",
        "DELETE FROM lake.t WHERE id = 1",
        "SELECT * FROM lake.t ORDER BY id",
    ],
    "reattach": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER)",
        "INSERT INTO lake.t VALUES (7)",
        "DETACH lake",
        ATTACH,
        "SELECT * FROM lake.t",
    ],
    "add-column": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
        "ALTER TABLE lake.t ADD COLUMN n DOUBLE",
        "INSERT INTO lake.t VALUES (3, 'c', 2.5)",
        "SELECT * FROM lake.t ORDER BY id",
    ],
    "alter-columns": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR, n DOUBLE)",
        "INSERT INTO lake.t VALUES (1, 'a', 0.5), (2, 'b', 1.5)",
        "ALTER TABLE lake.t RENAME COLUMN s TO label",
        "ALTER TABLE lake.t DROP COLUMN n",
        "ALTER TABLE lake.t ALTER id TYPE BIGINT",
        "SELECT * FROM lake.t ORDER BY id",
    ],
    "views-macros-comments": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "CREATE VIEW lake.v AS SELECT id FROM lake.t",
        "SELECT * FROM lake.v",
        "CREATE MACRO lake.add1(x) AS x + 1",
        "SELECT lake.add1(41)",
        "COMMENT ON TABLE lake.t IS 'hello'",
        "COMMENT ON COLUMN lake.t.id IS 'the id'",
        "DROP VIEW lake.v",
    ],
    "partitioned": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "ALTER TABLE lake.t SET PARTITIONED BY (id)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
        "SELECT * FROM lake.t ORDER BY id",
    ],
    "drop-schema": [
        ATTACH,
        "CREATE SCHEMA lake.s",
        "CREATE TABLE lake.s.x (i INTEGER)",
        "DROP TABLE lake.s.x",
        "DROP SCHEMA lake.s",
        "SELECT schema_name FROM duckdb_schemas() WHERE database_name = 'lake' ORDER BY 1",
    ],
    "drop-table": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a')",
        "DROP TABLE lake.t",
        "SELECT * FROM lake.t",
    ],
    # One explicit transaction with a commit message: one snapshot carrying author and message.
    "commit-message": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "BEGIN",
        "INSERT INTO lake.t VALUES (5, 'e')",
        "CALL lake.set_commit_message('me', 'hi')",
        "COMMIT",
        "SELECT author, commit_message FROM lake.snapshots() ORDER BY snapshot_id",
    ],
    "table-changes": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
        "SELECT * FROM lake.table_changes('t', 0, 3) ORDER BY ALL",
    ],
    "scalar-types": [
        ATTACH,
        "CREATE TABLE lake.ty (a BIGINT, b DOUBLE, c BOOLEAN, f DECIMAL(10, 2), m SMALLINT, n HUGEINT, o VARCHAR)",
        "INSERT INTO lake.ty VALUES (1, 1.5, true, 12.34, 7, 12345678901234567890, 'x')",
        "INSERT INTO lake.ty VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
        "SELECT * FROM lake.ty ORDER BY a NULLS LAST",
    ],
    # Inlined values DuckLake writes with a CAST.
    "cast-types": [
        ATTACH,
        "CREATE TABLE lake.ty (d DATE, e TIMESTAMP, g UUID, h BLOB, l TIMESTAMPTZ)",
        "INSERT INTO lake.ty VALUES (DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05', "
        "'0190e6ae-8b5c-7d2a-9f3e-0123456789ab', '\\x01'::BLOB, TIMESTAMPTZ '2024-01-02 03:04:05+00')",
        "INSERT INTO lake.ty VALUES (NULL, NULL, NULL, NULL, NULL)",
        "SELECT * FROM lake.ty ORDER BY d NULLS LAST",
    ],
    # Parquet data and delete files (above the inlining limit), then an update through them.
    "file-delete-update": [
        ATTACH,
        "CREATE TABLE lake.b (i BIGINT)",
        "INSERT INTO lake.b SELECT * FROM range(5000)",
        "DELETE FROM lake.b WHERE i % 2 = 0",
        "SELECT count(*) FROM lake.b",
        "UPDATE lake.b SET i = -1 WHERE i = 1",
        "SELECT min(i), count(*) FROM lake.b",
    ],
    "snapshots": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER)",
        "INSERT INTO lake.t VALUES (1)",
        "SELECT snapshot_id, schema_version, changes FROM lake.snapshots() ORDER BY snapshot_id",
        "SELECT id FROM lake.current_snapshot()",
    ],
    "file-insert": [
        ATTACH,
        "CREATE TABLE lake.big (i BIGINT, s VARCHAR)",
        "INSERT INTO lake.big SELECT i, 'v' || i FROM range(5000) r(i)",
        "SELECT count(*), sum(i), min(s), max(s) FROM lake.big",
        "SELECT * FROM lake.big WHERE i = 4321",
    ],
    # Several clients at once: four clients insert the same row concurrently; every commit lands once.
    "concurrent-inserts": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        ("parallel", 4, "INSERT INTO lake.t VALUES (1, 'x')"),
        "SELECT count(*), min(id), max(s) FROM lake.t",
        "SELECT count(*) FROM lake.snapshots()",
    ],
    # Maintenance: merging adjacent Parquet files (the replaced files are scheduled for deletion).
    "merge-adjacent-files": [
        ATTACH,
        "CREATE TABLE lake.b (i BIGINT)",
        "INSERT INTO lake.b SELECT * FROM range(3000)",
        "INSERT INTO lake.b SELECT * FROM range(3000)",
        "CALL ducklake_merge_adjacent_files('lake')",
        "SELECT count(*), sum(i) FROM lake.b",
    ],
    # Maintenance: rewriting files with deletes (docs/decisions/0243). The rewritten files carry their row
    # ids (row_id_start NULL); time travel before the rewrite reads the old files and delete files; a
    # later UPDATE and DELETE of rows in a rewritten file keep their row ids. (A partitioned rewrite is
    # translated too, but stock numbers its per-partition files in a nondeterministic order.)
    "rewrite-data-files": [
        ATTACH,
        "CREATE TABLE lake.b (i BIGINT, s VARCHAR)",
        "INSERT INTO lake.b SELECT i, 'v' || i FROM range(3000) t(i)",
        "INSERT INTO lake.b SELECT i, 'w' || i FROM range(3000, 5000) t(i)",
        "DELETE FROM lake.b WHERE i < 100",
        "DELETE FROM lake.b WHERE i % 7 = 0",
        "CREATE TABLE lake.c (x INTEGER)",
        "INSERT INTO lake.c SELECT * FROM range(2000)",
        "DELETE FROM lake.c WHERE x < 1990",
        "CALL ducklake_rewrite_data_files('lake', 'b', delete_threshold => 0.0)",
        "CALL ducklake_rewrite_data_files('lake', delete_threshold => 0.0)",
        "SELECT count(*), sum(i), min(s), max(s) FROM lake.b",
        "SELECT count(*), sum(x) FROM lake.c",
        "SELECT count(*), sum(i) FROM lake.b AT (VERSION => 5)",
        "SELECT count(*), sum(i) FROM lake.b AT (VERSION => 4)",
        "SELECT count(*), sum(x) FROM lake.c AT (VERSION => 8)",
        "UPDATE lake.b SET s = 'u' WHERE i = 101",
        "DELETE FROM lake.b WHERE i = 102",
        "SELECT rowid, i, s FROM lake.b WHERE i BETWEEN 99 AND 104 OR i > 4997 ORDER BY i",
    ],
    # A rewrite of some of a table's files (docs/decisions/0247-quack-partial-rewrites.md): two files over the
    # threshold become one, the third (below it) stays with its delete file; DuckLake leaves the table's
    # stats as they were. Time travel before the rewrite, and an UPDATE of a rewritten row after it.
    "rewrite-some-files": [
        ATTACH,
        "CREATE TABLE lake.b (i BIGINT)",
        "INSERT INTO lake.b SELECT * FROM range(3000)",
        "INSERT INTO lake.b SELECT * FROM range(3000, 6000)",
        "INSERT INTO lake.b SELECT * FROM range(6000, 9000)",
        "DELETE FROM lake.b WHERE i < 2000 OR (i >= 6000 AND i < 8000)",
        "DELETE FROM lake.b WHERE i BETWEEN 3000 AND 3100",
        "CALL ducklake_rewrite_data_files('lake', 'b', delete_threshold => 0.5)",
        "SELECT count(*), sum(i) FROM lake.b",
        "SELECT count(*), sum(i) FROM lake.b AT (VERSION => 6)",
        "UPDATE lake.b SET i = -1 WHERE i = 2500",
        "SELECT count(*), sum(i), min(i) FROM lake.b",
    ],
    # A partitioned table's rewrite: one output per partition (docs/decisions/0247). Stock numbers the
    # per-partition files (and a DELETE's per-partition delete files) in no fixed order, so this session
    # compares file ids renumbered by content (FILE_IDS_BY_CONTENT, DELETE_FILE_IDS_BY_CONTENT).
    "rewrite-partitioned": [
        ATTACH,
        "CREATE TABLE lake.p (k INTEGER, i BIGINT)",
        "ALTER TABLE lake.p SET PARTITIONED BY (k)",
        "INSERT INTO lake.p SELECT i % 2, i FROM range(4000) t(i)",
        "DELETE FROM lake.p WHERE i % 5 = 0",
        "CALL ducklake_rewrite_data_files('lake', 'p', delete_threshold => 0.0)",
        "SELECT k, count(*), sum(i) FROM lake.p GROUP BY k ORDER BY k",
        "SELECT k, count(*), sum(i) FROM lake.p AT (VERSION => 4) GROUP BY k ORDER BY k",
        "SELECT count(*) FROM lake.p WHERE k = 1 AND i > 3000",
    ],
    # Merges of several runs in one table (docs/decisions/0610-merge-output-per-compaction.md): one
    # compaction per partition, each of files whose row ids interleave with the other partition's (the
    # output carries its row ids, row_id_start NULL), each back-dated to its own first file; time travel
    # before the merge reads each partition's part of the merged files.
    "merge-adjacent-partitioned": [
        ATTACH,
        "CREATE TABLE lake.p (k INTEGER, i BIGINT)",
        "ALTER TABLE lake.p SET PARTITIONED BY (k)",
        "INSERT INTO lake.p SELECT i % 2, i FROM range(3000) t(i)",
        "INSERT INTO lake.p SELECT i % 2, i FROM range(3000, 5000) t(i)",
        "INSERT INTO lake.p SELECT i % 2, i FROM range(5000, 6000) t(i)",
        "SELECT table_name, files_processed, files_created FROM ducklake_merge_adjacent_files('lake')",
        "SELECT k, count(*), sum(i) FROM lake.p GROUP BY k ORDER BY k",
        "SELECT k, count(*), sum(i) FROM lake.p AT (VERSION => 4) GROUP BY k ORDER BY k",
        "SELECT i, rowid FROM lake.p WHERE i IN (1, 2999, 3001, 5999) ORDER BY i",
    ],
    # A merge of files without rows writes no output file (DuckLake's merge of empty files, decision 0610).
    "merge-adjacent-empty": [
        ATTACH,
        "CALL lake.set_option('data_inlining_row_limit', 0)",
        "CALL lake.set_option('per_thread_output', 'true')",
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t SELECT range, 'x' FROM range(100) WHERE range < 0",
        "INSERT INTO lake.t SELECT range, 'x' FROM range(100) WHERE range < 0",
        "INSERT INTO lake.t SELECT range, 'x' FROM range(100) WHERE range < 0",
        "SELECT table_name, files_processed, files_created FROM ducklake_merge_adjacent_files('lake')",
        "SELECT count(*) FROM lake.t",
    ],
    # Rewrites of files whose deletes are kept inlined (ducklake_inlined_delete_<t>, decision 0611): the
    # file ends, its inlined deletes stay with it, time travel before the rewrite still applies them; then
    # a file all of whose rows are deleted is rewritten to no file at all.
    "rewrite-inlined-deletes": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 10)",
        "CREATE TABLE lake.t AS SELECT i AS a, 'v' || i AS s FROM range(50) t(i)",
        "DELETE FROM lake.t WHERE a = 25 OR a = 3",
        "SELECT table_name, files_processed, files_created FROM ducklake_rewrite_data_files('lake', 't', delete_threshold => 0)",
        "SELECT count(*), sum(a), min(a), max(a) FROM lake.t",
        "SELECT count(*), sum(a) FROM lake.t AT (VERSION => 2)",
        "UPDATE lake.t SET s = 'u' WHERE a = 7",
        "SELECT a, s, rowid FROM lake.t WHERE a IN (6, 7, 8) ORDER BY a",
        "CREATE TABLE lake.g AS SELECT i AS a FROM range(30) t(i)",
        "DELETE FROM lake.g WHERE a < 5",
        "DELETE FROM lake.g",
        "SELECT table_name, files_processed, files_created FROM ducklake_rewrite_data_files('lake', 'g', delete_threshold => 0)",
        "SELECT count(*) FROM lake.g",
        "SELECT count(*) FROM lake.g AT (VERSION => 7)",
    ],
    # A rewrite of every file of a table that also holds inlined rows (docs/decisions/0730-rewrite-inlined-fold.md):
    # stock folds the live inlined rows (a deleted one left out) into the table's column stats and count; a
    # table with a column stock cannot fold (BLOB) keeps its stats; a rewrite leaving a clean file unrewritten
    # recomputes from both files.
    "rewrite-inlined-fold": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 100)",
        "CREATE TABLE lake.m (i INTEGER, s VARCHAR, d DOUBLE, b BOOLEAN, dt DATE)",
        "INSERT INTO lake.m SELECT i, 'v' || i, i / 4, i % 2 = 0, DATE '2020-01-01' + i::INTEGER FROM range(1, 201) t(i)",
        "INSERT INTO lake.m SELECT i, 'w' || i, i / 4, NULL, NULL FROM range(201, 251) t(i)",
        "INSERT INTO lake.m VALUES (-5, NULL, -1.5, true, DATE '1999-12-31')",
        "DELETE FROM lake.m WHERE i = 1",
        "DELETE FROM lake.m WHERE i = 250",
        "SELECT min(i), max(i), min(s), max(s), min(d), max(d), count(*) FROM lake.m",
        "CALL ducklake_rewrite_data_files('lake', delete_threshold => 0)",
        "SELECT min(i), max(i), min(s), max(s), min(d), max(d), min(dt), max(dt), count(*) FROM lake.m",
        "SELECT count(*) FROM lake.m WHERE i > 245",
        "SELECT count(*) FROM lake.m AT (VERSION => 6)",
        "CREATE TABLE lake.n (i INTEGER, bl BLOB)",
        "INSERT INTO lake.n SELECT i, 'x'::BLOB FROM range(1, 201) t(i)",
        "INSERT INTO lake.n VALUES (500, 'y'::BLOB)",
        "DELETE FROM lake.n WHERE i = 1",
        "CALL ducklake_rewrite_data_files('lake', 'n', delete_threshold => 0)",
        "SELECT min(i), max(i), count(*) FROM lake.n",
        "CREATE TABLE lake.p (i INTEGER)",
        "INSERT INTO lake.p SELECT i FROM range(1, 201) t(i)",
        "INSERT INTO lake.p SELECT i FROM range(1000, 1300) t(i)",
        "INSERT INTO lake.p VALUES (-7)",
        "DELETE FROM lake.p WHERE i = 1",
        "CALL ducklake_rewrite_data_files('lake', 'p', delete_threshold => 0)",
        "SELECT min(i), max(i), count(*) FROM lake.p",
        "SELECT count(*) FROM lake.p WHERE i < 0",
    ],
    # A flush of inlined deletes of a data file that also has a delete file (docs/decisions/0731-flush-into-delete-file.md):
    # stock writes one delete file holding both, replacing the live one. Two rewrites racing: DuckLake's conflict text.
    "flush-deletes-into-delete-file": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 10)",
        "CREATE TABLE lake.t (key INTEGER, v VARCHAR)",
        "INSERT INTO lake.t SELECT i, 'thisisastring_' || i FROM range(100) t(i)",
        "DELETE FROM lake.t WHERE key < 39",
        "DELETE FROM lake.t WHERE key > 90",
        "DELETE FROM lake.t WHERE key > 41",
        "CALL ducklake_flush_inlined_data('lake')",
        "SELECT * FROM lake.t ORDER BY key",
        "SELECT count(*) FROM lake.t AT (VERSION => 3)",
        "SELECT count(*) FROM lake.t AT (VERSION => 4)",
        "SELECT count(*) FROM lake.t AT (VERSION => 5)",
        "SELECT * FROM ducklake_table_deletions('lake', 't', 0, 6) ORDER BY key",
        # Two rewrites racing: the later commit gets DuckLake's conflict text.
        ("on", "b", "BEGIN"),
        ("on", "b", "CALL ducklake_rewrite_data_files('lake', 't', delete_threshold => 0)"),
        "CALL ducklake_rewrite_data_files('lake', 't', delete_threshold => 0)",
        ("on", "b", "COMMIT"),
        "SELECT * FROM lake.t ORDER BY key",
        "SELECT count(*) FROM lake.t AT (VERSION => 5)",
    ],
    # A flush of inlined deletes of a data file a rewrite ended (docs/decisions/0732-flush-deletes-of-ended-file.md):
    # stock still writes their delete file, for the ended file; time travel before the rewrite reads it.
    "flush-deletes-of-ended-file": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 100)",
        "CREATE TABLE lake.t (i INTEGER)",
        "INSERT INTO lake.t FROM range(1, 201)",
        "DELETE FROM lake.t WHERE i = 1",
        "DELETE FROM lake.t WHERE i = 200",
        "CALL ducklake_rewrite_data_files('lake', delete_threshold => 0)",
        "CALL ducklake_flush_inlined_data('lake')",
        "SELECT min(i), max(i), count(*) FROM lake.t",
        "SELECT min(i), max(i), count(*) FROM lake.t AT (VERSION => 2)",
        "SELECT min(i), max(i), count(*) FROM lake.t AT (VERSION => 3)",
        "SELECT min(i), max(i), count(*) FROM lake.t AT (VERSION => 4)",
        "SELECT * FROM ducklake_table_deletions('lake', 't', 0, 4) ORDER BY i",
    ],
    # A rewrite in the transaction that creates, fills and deletes from its table: a no-op, as in stock.
    "rewrite-in-transaction": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 100)",
        "BEGIN",
        "CREATE TABLE lake.s (i INTEGER)",
        "INSERT INTO lake.s FROM range(1, 201)",
        "DELETE FROM lake.s WHERE i = 1",
        "CALL ducklake_rewrite_data_files('lake', delete_threshold => 0)",
        "COMMIT",
        "SELECT min(i), max(i), count(*) FROM lake.s",
    ],
    # A comment on a column added in the same transaction: DuckLake's batch writes the column tag before
    # the new column (translate.ts insertsColumn).
    "comment-new-column": [
        ATTACH,
        "CREATE TABLE lake.t (a INTEGER, b VARCHAR)",
        "BEGIN",
        "COMMENT ON TABLE lake.t IS 'my table'",
        "ALTER TABLE lake.t ADD COLUMN c BIGINT",
        "COMMENT ON COLUMN lake.t.c IS 'new column'",
        "COMMIT",
        "SELECT column_name, comment FROM duckdb_columns() WHERE database_name = 'lake' ORDER BY column_index",
        "SELECT comment FROM duckdb_tables() WHERE database_name = 'lake'",
    ],
    # Staged commits racing a schema change (docs/decisions/0614-staged-schema-race.md): an insert into
    # another table rebases past a CREATE TABLE; a DELETE from a table another transaction dropped answers
    # DuckLake's conflict text.
    "schema-race": [
        ATTACH,
        "CREATE TABLE lake.t (i INTEGER)",
        "INSERT INTO lake.t SELECT * FROM range(100)",
        ("on", "b", "BEGIN"),
        ("on", "b", "INSERT INTO lake.t VALUES (1000)"),
        "CREATE TABLE lake.u (s VARCHAR)",
        ("on", "b", "COMMIT"),
        "SELECT count(*), sum(i) FROM lake.t",
        ("on", "b", "BEGIN"),
        ("on", "b", "DELETE FROM lake.t WHERE i < 10"),
        "DROP TABLE lake.t",
        ("on", "b", "COMMIT"),
        "SELECT count(*) FROM lake.u",
    ],
    # METADATA_SCHEMA (docs/decisions/0721-metadata-schemas.md): two more DuckLake catalogs beside the
    # lake's default one, each with its own snapshots, ids and data path; re-attached, each reads its own.
    "metadata-schemas": [
        ATTACH,
        "CREATE TABLE lake.t (i INTEGER)",
        "INSERT INTO lake.t VALUES (1)",
        "ATTACH '{attach}' AS s1 (DATA_PATH '{data}s1/', METADATA_SCHEMA 'metadata_s1')",
        "CREATE TABLE s1.t (s VARCHAR)",
        "INSERT INTO s1.t VALUES ('a'), ('b')",
        "ATTACH '{attach}' AS s2 (DATA_PATH '{data}s2/', METADATA_SCHEMA 'metadata_s2')",
        "CREATE TABLE s2.u (x BIGINT)",
        "INSERT INTO s2.u SELECT range FROM range(5)",
        "INSERT INTO s2.u SELECT range FROM range(100, 2100)",
        "DELETE FROM s1.t WHERE s = 'a'",
        "SELECT * FROM s1.t ORDER BY s",
        "SELECT count(*), sum(x) FROM s2.u",
        "SELECT * FROM lake.t",
        "SELECT snapshot_id, changes FROM ducklake_snapshots('s1') ORDER BY snapshot_id",
        "SELECT snapshot_id, changes FROM ducklake_snapshots('s2') ORDER BY snapshot_id",
        "SELECT snapshot_id FROM ducklake_snapshots('lake') ORDER BY snapshot_id",
        "SELECT table_name FROM duckdb_tables() WHERE database_name IN ('s1', 's2') ORDER BY ALL",
        "DETACH s1",
        "ATTACH '{attach}' AS s1 (METADATA_SCHEMA 'metadata_s1')",
        "SELECT * FROM s1.t ORDER BY s",
        "SELECT count(*) FROM s2.u AT (VERSION => 2)",
    ],
    # ducklake_max_retry_count (docs/decisions/0720-staged-retry-count.md): a staged commit whose transaction
    # read a snapshot another commit has since followed fails with 0 or 1 (stock's one attempt takes the
    # taken snapshot id) and lands with 2 (stock's second attempt, the rebase here).
    "retry-count": [
        ATTACH,
        "CREATE TABLE lake.t (i INTEGER)",
        "INSERT INTO lake.t VALUES (1)",
        ("on", "b", "SET ducklake_max_retry_count = 1"),
        ("on", "b", "BEGIN"),
        ("on", "b", "INSERT INTO lake.t VALUES (2)"),
        "INSERT INTO lake.t VALUES (3)",
        ("on", "b", "COMMIT"),
        ("on", "b", "SET ducklake_max_retry_count = 0"),
        ("on", "b", "BEGIN"),
        ("on", "b", "INSERT INTO lake.t VALUES (4)"),
        "INSERT INTO lake.t VALUES (5)",
        ("on", "b", "COMMIT"),
        ("on", "b", "INSERT INTO lake.t VALUES (6)"),
        ("on", "b", "SET ducklake_max_retry_count = 2"),
        ("on", "b", "BEGIN"),
        ("on", "b", "INSERT INTO lake.t VALUES (7)"),
        "INSERT INTO lake.t VALUES (8)",
        ("on", "b", "COMMIT"),
        "SELECT i FROM lake.t ORDER BY i",
    ],
    # Delete files replacing others (docs/decisions/0615-delete-file-replacements.md): deletion vectors
    # (puffin, no per-row snapshots) replace the live one begun at the commit; two DELETEs of one file in one
    # transaction write one plain delete file.
    "deletion-vectors": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', WRITE_DELETION_VECTORS true)",
        "CREATE TABLE lake.t AS SELECT i id FROM range(1000) t(i)",
        "DELETE FROM lake.t WHERE id % 2 = 0",
        "DELETE FROM lake.t WHERE id < 100",
        "SELECT count(*), sum(id) FROM lake.t",
        "SELECT count(*) FROM lake.t AT (VERSION => 2)",
    ],
    "two-deletes-one-transaction": [
        ATTACH,
        "CREATE TABLE lake.t AS SELECT i id FROM range(10000) t(i)",
        "BEGIN",
        "DELETE FROM lake.t WHERE id % 8 = 0",
        "DELETE FROM lake.t WHERE id % 4 = 0",
        "COMMIT",
        "SELECT count(*), sum(id) FROM lake.t",
        "SELECT count(*) FROM lake.t AT (VERSION => 1)",
    ],
    # An UPDATE of rows in a file that already has a delete file, twice in one transaction: the new delete
    # file replaces the committed one beside the UPDATE's new data files
    # (docs/decisions/0618-update-replacing-delete-files.md).
    "update-replaces-delete-file": [
        ATTACH,
        "CREATE TABLE lake.t AS SELECT i id, 'a' v FROM range(1000) t(i)",
        "DELETE FROM lake.t WHERE id >= 900",
        "BEGIN",
        "UPDATE lake.t SET v = 'b' WHERE id < 100",
        "UPDATE lake.t SET v = 'c' WHERE id >= 100 AND id < 200",
        "COMMIT",
        "SELECT v, count(*), sum(id) FROM lake.t GROUP BY v ORDER BY v",
        "SELECT count(*) FROM lake.t AT (VERSION => 2)",
        "SELECT v, count(*) FROM lake.t AT (VERSION => 1) GROUP BY v ORDER BY v",
        "SELECT change_type, count(*), sum(id) FROM ducklake_table_changes('lake', 'main', 't', 2, 3) GROUP BY ALL ORDER BY ALL",
        "SELECT count(*), sum(id) FROM ducklake_table_deletions('lake', 'main', 't', 3, 3)",
        "UPDATE lake.t SET v = 'd' WHERE id >= 200 AND id < 250",
        "SELECT v, count(*), sum(id) FROM lake.t GROUP BY v ORDER BY v",
        "SELECT v, count(*) FROM lake.t AT (VERSION => 3) GROUP BY v ORDER BY v",
    ],
    # The same beside committed inlined deletes of the file, which the replacing delete file carries
    # (DuckLake's issue 865 shape; decision 0618).
    "update-replaces-delete-file-inlined": [
        ATTACH,
        "CALL lake.set_option('data_inlining_row_limit', 10)",
        "CREATE TABLE lake.t AS SELECT i AS id, 'original' AS val FROM range(100) t(i)",
        "DELETE FROM lake.t WHERE id >= 80",
        "DELETE FROM lake.t WHERE id >= 75",
        "UPDATE lake.t SET val = 'updated' WHERE id < 20",
        "SELECT val, count(*), sum(id) FROM lake.t GROUP BY ALL ORDER BY ALL",
        "SELECT count(*) FROM lake.t AT (VERSION => 3)",
        "SELECT count(*) FROM lake.t AT (VERSION => 4)",
        "SELECT change_type, count(*), sum(id) FROM ducklake_table_changes('lake', 'main', 't', 3, 5) GROUP BY ALL ORDER BY ALL",
        "DELETE FROM lake.t WHERE id = 50",
        "SELECT val, count(*), sum(id) FROM lake.t GROUP BY ALL ORDER BY ALL",
    ],
    # The same with deletion vectors: the replacing file carries no begin (decisions 0615, 0618).
    "update-replaces-deletion-vector": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', WRITE_DELETION_VECTORS true)",
        "CREATE TABLE lake.t AS SELECT i id, 'a' v FROM range(1000) t(i)",
        "DELETE FROM lake.t WHERE id % 2 = 0",
        "BEGIN",
        "UPDATE lake.t SET v = 'b' WHERE id < 100",
        "UPDATE lake.t SET v = 'c' WHERE id >= 100 AND id < 200",
        "COMMIT",
        "SELECT v, count(*), sum(id) FROM lake.t GROUP BY v ORDER BY v",
        "SELECT count(*) FROM lake.t AT (VERSION => 2)",
        "SELECT change_type, count(*), sum(id) FROM ducklake_table_changes('lake', 'main', 't', 3, 3) GROUP BY ALL ORDER BY ALL",
    ],
    # A DELETE in the transaction that inserted a file deletes from it too: a delete file attached to the
    # new file beside one of an existing file (docs/decisions/0616-attached-delete-files.md).
    "delete-own-insert": [
        ATTACH,
        "CREATE TABLE lake.t AS SELECT i id FROM range(500) t(i)",
        "BEGIN",
        "INSERT INTO lake.t FROM range(500, 1000)",
        "DELETE FROM lake.t WHERE id % 2 = 0",
        "COMMIT",
        "SELECT count(*), sum(id) FROM lake.t",
        "SELECT count(*) FROM lake.t AT (VERSION => 1)",
        "DELETE FROM lake.t WHERE id > 900",
        "SELECT count(*), sum(id) FROM lake.t",
    ],
    # A DELETE covering every live row of a file drops the file whole (docs/decisions/0248-quack-dropped-files.md):
    # one without deletes, one with a delete file, in the same commit as a delete file of another file; then
    # one in the same commit as inlined deletes.
    "dropped-files": [
        ATTACH,
        "CREATE TABLE lake.b (i BIGINT)",
        "INSERT INTO lake.b SELECT * FROM range(3000)",
        "INSERT INTO lake.b SELECT * FROM range(3000, 6000)",
        "INSERT INTO lake.b SELECT * FROM range(6000, 9000)",
        "DELETE FROM lake.b WHERE i < 1000",
        "DELETE FROM lake.b WHERE i < 3000 OR i >= 8000",
        "SELECT count(*), sum(i) FROM lake.b",
        "DELETE FROM lake.b WHERE i >= 3000 AND i < 6000",
        "SELECT count(*), sum(i) FROM lake.b",
        "SELECT count(*), sum(i) FROM lake.b AT (VERSION => 5)",
        "SELECT count(*), sum(i) FROM lake.b AT (VERSION => 6)",
        "INSERT INTO lake.b VALUES (42)",
        "INSERT INTO lake.b SELECT * FROM range(10000, 13000)",
        # A drop beside an inlined delete of inlined rows and one of a Parquet file's rows.
        "DELETE FROM lake.b WHERE (i >= 6000 AND i < 8000) OR i = 42 OR i = 12000",
        "SELECT count(*), sum(i) FROM lake.b",
        "SELECT count(*), sum(i) FROM lake.b AT (VERSION => 8)",
    ],
    # A rename keeps the table's id and uuid: a new ducklake_table row version under the same id.
    "rename-table": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a')",
        "ALTER TABLE lake.t RENAME TO t2",
        "INSERT INTO lake.t2 VALUES (2, 'b')",
        "SELECT * FROM lake.t2 ORDER BY id",
    ],
    # Time travel by time: the newest snapshot at or before it; before the first snapshot stock fails.
    "at-timestamp": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER)",
        "INSERT INTO lake.t VALUES (1)",
        "SELECT count(*) FROM lake.t AT (TIMESTAMP => now())",
        "SELECT count(*) FROM lake.t AT (TIMESTAMP => TIMESTAMPTZ '2000-01-01 00:00:00+00')",
    ],
    # Global options: set_option counts the key's global rows, then inserts or updates; the limit applies.
    "set-option": [
        ATTACH,
        "CALL lake.set_option('data_inlining_row_limit', 20)",
        "CALL lake.set_option('data_inlining_row_limit', 30)",
        "CREATE TABLE lake.t (id INTEGER)",
        "INSERT INTO lake.t SELECT * FROM range(25)",
        "SELECT count(*) FROM lake.t",
        # A double option in DuckLake's stored form (six decimals, decision 0612).
        "CALL lake.set_option('rewrite_delete_threshold', 0.1)",
        "CALL lake.set_option('rewrite_delete_threshold', 1)",
        "SELECT option_name, value FROM lake.options() WHERE option_name = 'rewrite_delete_threshold'",
    ],
    # Expiring snapshots by version and by time (docs/decisions/0241).
    "expire-snapshots": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER)",
        "INSERT INTO lake.t VALUES (1)",
        "INSERT INTO lake.t VALUES (2)",
        "CALL ducklake_expire_snapshots('lake', versions => [1])",
        "CALL ducklake_expire_snapshots('lake', older_than => now())",
        "SELECT snapshot_id FROM lake.snapshots() ORDER BY 1",
        "SELECT * FROM lake.t ORDER BY id",
    ],
    # Expiry prunes the ended versions of schemas, views, macros and tags no snapshot sees any more.
    "expire-versions": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
        "UPDATE lake.t SET s = 'B' WHERE id = 2",
        "ALTER TABLE lake.t RENAME TO t2",
        "ALTER TABLE lake.t2 ADD COLUMN n INTEGER",
        "ALTER TABLE lake.t2 DROP COLUMN n",
        "CREATE VIEW lake.v AS SELECT 1 AS x",
        "DROP VIEW lake.v",
        "CREATE MACRO lake.m(x) AS x + 1",
        "DROP MACRO lake.m",
        "CREATE SCHEMA lake.s",
        "DROP SCHEMA lake.s",
        "COMMENT ON TABLE lake.t2 IS 'c1'",
        "COMMENT ON TABLE lake.t2 IS 'c2'",
        "CALL ducklake_expire_snapshots('lake', versions => [2, 3])",
        "SELECT snapshot_id FROM lake.snapshots() ORDER BY 1",
        "CALL ducklake_expire_snapshots('lake', older_than => now())",
        "SELECT snapshot_id FROM lake.snapshots() ORDER BY 1",
        "SELECT * FROM lake.t2 ORDER BY id",
        "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)",
    ],
    # Expiry of everything at once: renamed and altered tables, a table emptied by DELETE, a table dropped
    # whole (its rows by table_id, its inlined tables, its file scheduled), views, macros, schemas, tags.
    "expire-dropped-tables": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
        "UPDATE lake.t SET s = 'B' WHERE id = 2",
        "ALTER TABLE lake.t RENAME TO t2",
        "ALTER TABLE lake.t2 ADD COLUMN n INTEGER",
        "ALTER TABLE lake.t2 DROP COLUMN n",
        "CREATE TABLE lake.b (i BIGINT)",
        "INSERT INTO lake.b SELECT * FROM range(5000)",
        "DELETE FROM lake.b WHERE i < 10",
        "DELETE FROM lake.b",
        "CREATE TABLE lake.d (i BIGINT)",
        "INSERT INTO lake.d SELECT * FROM range(5000)",
        "DROP TABLE lake.d",
        "CREATE VIEW lake.v AS SELECT 1 AS x",
        "DROP VIEW lake.v",
        "CREATE MACRO lake.m(x) AS x + 1",
        "DROP MACRO lake.m",
        "CREATE SCHEMA lake.s",
        "DROP SCHEMA lake.s",
        "COMMENT ON TABLE lake.t2 IS 'c1'",
        "COMMENT ON TABLE lake.t2 IS 'c2'",
        "CALL ducklake_expire_snapshots('lake', older_than => now())",
        "SELECT snapshot_id FROM lake.snapshots() ORDER BY 1",
        "SELECT * FROM lake.t2 ORDER BY id",
        "SELECT count(*) FROM lake.b",
        "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)",
    ],
    # Cleanup after a merge: the replaced files are removed by DuckDB, their schedule rows by the commit
    # (docs/decisions/0242). `ducklake_delete_orphaned_files` on a local data path answers as stock (decision
    # 0630); on a lake's own prefix, what it keeps is checked by test/quack/data_plane.py.
    "cleanup-old-files": [
        ATTACH,
        "CREATE TABLE lake.b (i BIGINT)",
        "INSERT INTO lake.b SELECT * FROM range(3000)",
        "INSERT INTO lake.b SELECT * FROM range(3000)",
        "CALL ducklake_merge_adjacent_files('lake')",
        "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)",
        "CALL ducklake_delete_orphaned_files('lake', cleanup_all => true, dry_run => true)",
        "CALL ducklake_delete_orphaned_files('lake', cleanup_all => true)",
        "CHECKPOINT lake",
        "SELECT count(*), sum(i) FROM lake.b",
    ],
    # Nested values inlined (LIST, STRUCT, MAP, nested in each other, empty and NULL), read back.
    "nested-inlined": [
        ATTACH,
        "CREATE TABLE lake.nest (l INTEGER[], ls VARCHAR[], ll BIGINT[][], st STRUCT(k VARCHAR, v INTEGER, d DATE), "
        "m MAP(VARCHAR, INTEGER), mi MAP(INTEGER, DOUBLE[]), sl STRUCT(xs DECIMAL(10, 2)[], t TIMESTAMP)[], arr INTEGER[3])",
        "INSERT INTO lake.nest VALUES ([1, 2, NULL], ['a', 'b''c', NULL, ''], [[1], [], NULL], "
        "{'k': 'x, y', 'v': 1, 'd': DATE '2024-01-01'}, MAP {'x': 1, 'y': NULL}, MAP {1: [1.5, NULL]}, "
        "[{'xs': [1.25, 2.50], 't': TIMESTAMP '2024-01-02 03:04:05'}, NULL], [1, 2, 3])",
        "INSERT INTO lake.nest VALUES ([], [], [], {'k': NULL, 'v': NULL, 'd': NULL}, MAP {}, MAP {}, [], NULL)",
        "INSERT INTO lake.nest VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
        "SELECT * FROM lake.nest ORDER BY l NULLS LAST, len(ls)",
    ],
    # The stats of a nested column's leaves, kept for inlined rows as stock keeps them (DuckLake's suite
    # types/list.test and types/struct.test; docs/decisions/0412-suite-wrong-answers.md).
    "nested-leaf-stats": [
        ATTACH,
        "CREATE TABLE lake.l (l INTEGER[])",
        "INSERT INTO lake.l VALUES ([1]), ([NULL]), (NULL), ([3])",
        "INSERT INTO lake.l VALUES ([4, 5]), ([6, 7])",
        "SELECT stats(l[1]) FROM lake.l LIMIT 1",
        "CREATE TABLE lake.s (s STRUCT(i INTEGER, j INTEGER))",
        "INSERT INTO lake.s VALUES ({'i': 1, 'j': 2}), ({'i': NULL, 'j': 3}), (NULL)",
        "INSERT INTO lake.s VALUES ({'i': 4, 'j': 5}), ({'i': 6, 'j': 7})",
        "SELECT stats(s.i), stats(s.j) FROM lake.s LIMIT 1",
    ],
    # ducklake_add_data_files of Parquet files DuckDB wrote: the columns in another order, one missing, one
    # extra, then a second file of a committed name map's shape (reused, not a new map), a rename and a
    # delete; the name maps and the files' mapping ids as stock writes them
    # (docs/decisions/0600-staged-name-maps.md). The files lie in the data path (decision 0105).
    "add-data-files-mapped": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, name VARCHAR, score DOUBLE)",
        "INSERT INTO lake.t SELECT i, 'n' || i, i * 0.5 FROM range(1500) r(i)",
        "COPY (SELECT 'p' AS name, 2000 AS id, 1.5 AS score) TO '{data}plain.parquet'",
        "COPY (SELECT 'm' AS name, 3001 AS id) TO '{data}missing.parquet'",
        "COPY (SELECT 4001 AS id, 'x' AS name, 2.5 AS score, 42 AS extra) TO '{data}extra.parquet'",
        "COPY (SELECT 'q' AS name, 2001 AS id, 3.5 AS score) TO '{data}plain2.parquet'",
        "CALL ducklake_add_data_files('lake', 't', '{data}plain.parquet')",
        "CALL ducklake_add_data_files('lake', 't', '{data}missing.parquet', allow_missing => true)",
        "CALL ducklake_add_data_files('lake', 't', '{data}extra.parquet', ignore_extra_columns => true)",
        "SELECT * FROM lake.t WHERE id >= 1499 ORDER BY id",
        "CALL ducklake_add_data_files('lake', 't', '{data}plain2.parquet')",
        "ALTER TABLE lake.t RENAME COLUMN name TO label",
        "DELETE FROM lake.t WHERE id = 3001",
        "SELECT id, label, score FROM lake.t WHERE id >= 1499 ORDER BY id",
        "SELECT count(*), sum(id), min(label), max(score) FROM lake.t",
        "SELECT mapping_id, table_id, type FROM __ducklake_metadata_lake.ducklake_column_mapping ORDER BY ALL",
        "SELECT * FROM __ducklake_metadata_lake.ducklake_name_mapping ORDER BY ALL",
        "SELECT data_file_id, mapping_id, record_count, row_id_start FROM __ducklake_metadata_lake.ducklake_data_file ORDER BY ALL",
    ],
    # A MERGE INTO stages a data file and inlined rows in one commit: the table's column stats must cover
    # both, or DuckDB's statistics-driven execution reads the file's 300 as 65836 (DuckLake's suite
    # merge/merge_update_insert.test; docs/decisions/0412-suite-wrong-answers.md).
    "merge-file-and-inlined-stats": [
        ATTACH,
        "CREATE TABLE lake.stock (item_id INTEGER, balance INTEGER)",
        "INSERT INTO lake.stock VALUES (10, 2200), (20, 1900)",
        "CREATE TABLE lake.buy (item_id INTEGER, volume INTEGER)",
        "INSERT INTO lake.buy VALUES (10, 1000)",
        "INSERT INTO lake.buy VALUES (30, 300)",
        "MERGE INTO lake.stock AS s USING lake.buy AS b ON s.item_id = b.item_id "
        "WHEN MATCHED THEN UPDATE SET balance = balance + b.volume WHEN NOT MATCHED THEN INSERT VALUES (b.item_id, b.volume)",
        "FROM lake.stock ORDER BY item_id",
    ],
}


# Sessions the server-side commit path (`run.py --server-commit`, the deployment switch QUACK_SERVER_COMMIT,
# docs/decisions/0262-server-commit-switch.md) does not translate yet. None: flushes of inlined rows
# (docs/decisions/0263-staged-flush.md), DELETEs replacing a live delete file, flushes of inlined deletes
# and rewrites of deleted rows (docs/decisions/0265-staged-delete-files.md) are translated. A session added
# here keeps running in the default (client-side commit) suite.
SERVER_COMMIT_PENDING: tuple[str, ...] = ()

SESSIONS |= {
    # Flushing inlined rows into a Parquet file: one table by name, then the rest (docs/decisions/0240).
    "flush-inlined": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
        "CREATE TABLE lake.u (x BIGINT)",
        "INSERT INTO lake.u VALUES (5)",
        "CALL ducklake_flush_inlined_data('lake', table_name => 't')",
        "CALL ducklake_flush_inlined_data('lake')",
        "SELECT * FROM lake.t ORDER BY id",
        "SELECT * FROM lake.u",
    ],
    # A flush of rows that were deleted and updated: the file's delete file keeps time travel.
    "flush-with-deletes": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "DELETE FROM lake.t WHERE id = 2",
        "UPDATE lake.t SET s = 'C' WHERE id = 3",
        "CALL ducklake_flush_inlined_data('lake')",
        "SELECT * FROM lake.t ORDER BY id",
        "SELECT * FROM lake.t AT (VERSION => 2) ORDER BY id",
    ],
    # A flush across a schema change: one file per inlined table, then the older one retired.
    "flush-after-alter": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a')",
        "ALTER TABLE lake.t ADD COLUMN n INTEGER",
        "INSERT INTO lake.t VALUES (2, 'b', 5)",
        "CALL ducklake_flush_inlined_data('lake')",
        "SELECT * FROM lake.t ORDER BY id",
    ],
    # A flush of a partitioned table writes one file per partition, each carrying its rows' own ids (not
    # contiguous: the partitions interleave) and registered from its lowest id; then rowid, UPDATE, DELETE and
    # table_changes read and end those rows by their ids (docs/decisions/0617-partitioned-flush.md).
    "flush-partitioned": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, p INTEGER, s VARCHAR)",
        "ALTER TABLE lake.t SET PARTITIONED BY (p)",
        "INSERT INTO lake.t SELECT i, i % 3, 'x' || i FROM range(10) t(i)",
        "INSERT INTO lake.t VALUES (10, 1, 'y'), (11, 2, 'z')",
        "DELETE FROM lake.t WHERE id = 4",
        "UPDATE lake.t SET s = 'u' WHERE id = 5",
        "CALL ducklake_flush_inlined_data('lake')",
        "SELECT rowid, * FROM lake.t ORDER BY rowid",
        "SELECT rowid, * FROM lake.t AT (VERSION => 3) ORDER BY rowid",
        "UPDATE lake.t SET s = 'v' WHERE id IN (2, 7)",
        "DELETE FROM lake.t WHERE id IN (3, 11)",
        "SELECT rowid, * FROM lake.t ORDER BY rowid",
        "SELECT rowid, id, s FROM lake.t WHERE rowid IN (1, 6, 9) ORDER BY rowid",
        "SELECT snapshot_id, rowid, change_type, id, s FROM ducklake_table_changes('lake', 'main', 't', 0, 9)"
        " ORDER BY ALL",
    ],
    # Flushing inlined deletes of Parquet files into delete files (docs/decisions/0245): a file with a delete
    # file (replaced by one holding both) and a file without; time travel before and after the flush.
    "flush-inlined-deletes": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t SELECT i, 'x' || i FROM range(3000) t(i)",
        "DELETE FROM lake.t WHERE id < 200",
        "DELETE FROM lake.t WHERE id = 500",
        "INSERT INTO lake.t SELECT i, 'y' || i FROM range(3000, 5000) t(i)",
        "DELETE FROM lake.t WHERE id = 3001 OR id = 600",
        "CALL ducklake_flush_inlined_data('lake')",
        "SELECT count(*), sum(id) FROM lake.t",
        "SELECT count(*), sum(id) FROM lake.t AT (VERSION => 4)",
        "SELECT count(*), sum(id) FROM lake.t AT (VERSION => 3)",
        "DELETE FROM lake.t WHERE id = 700",
        "SELECT count(*), sum(id) FROM lake.t",
        "SELECT id, s FROM lake.t WHERE id BETWEEN 498 AND 502 OR id BETWEEN 3000 AND 3002 ORDER BY id",
    ],
    # Every scalar type DuckLake supports, inlined, with edge values (NaN, -inf, empty string, quotes).
    "all-types": [
        ATTACH,
        "CREATE TABLE lake.ty (a BOOLEAN, b TINYINT, c SMALLINT, d INTEGER, e BIGINT, f HUGEINT, g UTINYINT, "
        "h USMALLINT, i UINTEGER, j UBIGINT, k UHUGEINT, l FLOAT, m DOUBLE, n DECIMAL(18, 3), o DATE, p TIME, "
        "q TIMESTAMP, r TIMESTAMP_S, s TIMESTAMP_MS, t TIMESTAMP_NS, u TIMESTAMPTZ, v INTERVAL, w VARCHAR, x BLOB, "
        "y UUID, z JSON, tz TIMETZ, dec2 DECIMAL(38, 10))",
        "INSERT INTO lake.ty VALUES (true, -1, -2, -3, -4, -5, 1, 2, 3, 4, 5, 1.5, 2.25, 123.456, DATE '2024-02-29', "
        "TIME '12:34:56.789', TIMESTAMP '2024-01-02 03:04:05.678901', TIMESTAMP_S '2024-01-02 03:04:05', "
        "TIMESTAMP_MS '2024-01-02 03:04:05.678', TIMESTAMP_NS '2024-01-02 03:04:05.678901234', "
        "TIMESTAMPTZ '2024-01-02 03:04:05+00', INTERVAL '1 day 2 hours', 'hé''llo', '\\x00\\xFF'::BLOB, "
        "'0190e6ae-8b5c-7d2a-9f3e-0123456789ab', '{\"a\": 1}', TIMETZ '12:00:00+02', 12345678901234567890.0123456789)",
        "INSERT INTO lake.ty SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'nan'::FLOAT, "
        "'-inf'::DOUBLE, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '', NULL, NULL, NULL, NULL, NULL",
        "SELECT * FROM lake.ty ORDER BY a NULLS LAST",
    ],
}

SESSIONS |= {
    # Everyday SQL over a table written as Parquet (above the inlining limit): the commit reads its schema's
    # path, top-N and filters prune files by stats, a self-join, ducklake_table_info (decision 0420).
    "ctas-top-n-joins": [
        ATTACH,
        "CREATE TABLE lake.t AS SELECT i, 'x' || i AS s, TIMESTAMP '2026-01-01' + INTERVAL (i) MINUTE AS ts "
        "FROM range(3000) r(i)",
        "SELECT * FROM lake.t ORDER BY i DESC LIMIT 3",
        "SELECT i, s FROM lake.t ORDER BY ts DESC LIMIT 2",
        "SELECT count(*) FROM lake.t WHERE i > 2990",
        "SELECT a.i, b.s FROM lake.t a JOIN lake.t b ON a.i = b.i WHERE a.i < 3 ORDER BY 1",
        "SELECT table_name, file_count, file_size_bytes > 0 FROM ducklake_table_info('lake')",
        "INSERT INTO lake.t SELECT i, 'y' || i, TIMESTAMP '2027-01-01' FROM range(3000, 3004) r(i)",
        "SELECT i FROM lake.t WHERE ts >= TIMESTAMP '2026-06-01' ORDER BY i",
        "SELECT i FROM lake.t ORDER BY s DESC LIMIT 2",
    ],
    # The metadata catalog itself, as users query it: DuckDB's Quack catalog scans it with positional
    # projections (`SELECT #1, #2 FROM ducklake_data_file`) and existence probes (`SELECT NULL::BOOLEAN`).
    "metadata-catalog-scans": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
        "CREATE TABLE lake.big AS SELECT i FROM range(2000) r(i)",
        "SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM __ducklake_metadata_lake.ducklake_snapshot ORDER BY ALL",
        "SELECT count(*) FROM __ducklake_metadata_lake.ducklake_snapshot",
        "SELECT table_id, schema_id, table_name, begin_snapshot, end_snapshot FROM __ducklake_metadata_lake.ducklake_table ORDER BY ALL",
        "SELECT column_id, table_id, column_name, column_type, nulls_allowed FROM __ducklake_metadata_lake.ducklake_column ORDER BY ALL",
        "SELECT data_file_id, table_id, begin_snapshot, end_snapshot, record_count, row_id_start, file_format "
        "FROM __ducklake_metadata_lake.ducklake_data_file",
        "SELECT table_id, column_id, value_count, null_count, min_value, max_value FROM __ducklake_metadata_lake.ducklake_file_column_stats ORDER BY ALL",
        "SELECT table_id, record_count, next_row_id FROM __ducklake_metadata_lake.ducklake_table_stats ORDER BY ALL",
        "SELECT count(*) FROM __ducklake_metadata_lake.ducklake_delete_file",
        "SELECT key, value FROM __ducklake_metadata_lake.ducklake_metadata WHERE key NOT IN ('data_path', 'created_by') ORDER BY ALL",
        "SELECT * FROM __ducklake_metadata_lake.ducklake_schema_versions ORDER BY ALL",
        "SELECT table_id, schema_version FROM __ducklake_metadata_lake.ducklake_inlined_data_tables ORDER BY ALL",
        "SELECT * FROM __ducklake_metadata_lake.ducklake_inlined_data_1_1 ORDER BY row_id",
    ],
    # ALTER … SET DEFAULT (DuckLake asks whether the column came with its table) and set_option at table
    # and schema scope (DuckLake counts the option rows of that scope first).
    "set-default-and-option-scopes": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "ALTER TABLE lake.t ALTER s SET DEFAULT 'zz'",
        "INSERT INTO lake.t (id) VALUES (1)",
        "SELECT * FROM lake.t",
        "ALTER TABLE lake.t ADD COLUMN n INTEGER",
        "ALTER TABLE lake.t ALTER n SET DEFAULT 5",
        "INSERT INTO lake.t (id) VALUES (2)",
        "SELECT * FROM lake.t ORDER BY id",
        "CALL lake.set_option('parquet_compression', 'zstd', table_name => 't')",
        "CALL lake.set_option('parquet_compression', 'zstd', table_name => 't')",
        "CALL lake.set_option('parquet_row_group_size', '1000', schema => 'main')",
        "SELECT option_name, value, scope, scope_entry FROM lake.options() WHERE scope <> 'GLOBAL' ORDER BY ALL",
    ],
    # table_changes between two times: DuckLake finds the snapshots by timestamp.
    "table-changes-by-time": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
        "UPDATE lake.t SET s = 'B' WHERE id = 2",
        "SELECT snapshot_id, rowid, change_type, id, s FROM ducklake_table_changes('lake', 'main', 't', "
        "now() - INTERVAL 1 HOUR, now() + INTERVAL 1 HOUR) ORDER BY ALL",
        "SELECT count(*) FROM lake.t AT (TIMESTAMP => now() + INTERVAL 1 HOUR)",
    ],
}

# Issue 26's value property: seeded random values of every type, inlined and in Parquet (value_sessions.py).
from value_sessions import VALUE_SESSIONS  # noqa: E402

# The storage version of a session's stock catalog file when not the default (v1.0.0): stock stores VARIANT
# columns (an inlined-data table's) only from v1.5.0 on, so the value sessions, which write VARIANT values,
# need it (docs/decisions/0700-variant-values.md).
STOCK_STORAGE = {name: "v1.5.0" for name in VALUE_SESSIONS}

SESSIONS |= VALUE_SESSIONS

# The value property compares every value read back, and every generated statement must succeed on stock;
# its catalog rows are not compared yet: the statistics of the files and tables it writes still differ from
# stock's (file column_size_bytes and value_count, a BOOLEAN column's min '0' for 'false', HUGEINT and
# FLOAT stats stock leaves NULL, nested leaves' stats on the staged path; measured 2026-12-05, issue 26).
VALUE_PROPERTY = frozenset(VALUE_SESSIONS)

# Issue 26: commits DuckLake sends that landed differently from stock (docs/decisions/0440-commit-space.md).
SESSIONS |= {
    # A MERGE that updates an inlined row and inserts one: stock's server-side commit writes the insert as a
    # Parquet file and the update inlined, in one commit. The table's column stats must cover both, else
    # DuckDB's compressed materialization, trusting min/max, read 300 back as 65836.
    "merge-update-insert": [
        ATTACH,
        "CREATE TABLE lake.stock (item_id INTEGER, balance INTEGER)",
        "INSERT INTO lake.stock VALUES (10, 2200), (20, 1900)",
        "CREATE TABLE lake.buy (item_id INTEGER, volume INTEGER)",
        "INSERT INTO lake.buy VALUES (10, 1000)",
        "INSERT INTO lake.buy VALUES (30, 300)",
        "MERGE INTO lake.stock AS s USING lake.buy AS b ON s.item_id = b.item_id "
        "WHEN MATCHED THEN UPDATE SET balance = balance + b.volume "
        "WHEN NOT MATCHED THEN INSERT VALUES (b.item_id, b.volume)",
        "SELECT item_id, balance, rowid FROM lake.stock ORDER BY item_id",
        "SELECT balance FROM lake.stock ORDER BY item_id",
    ],
    # ducklake_flush_inlined_data inside BEGIN … COMMIT: the flush's lone DELETE hides the flushed inlined rows
    # from this connection's reads (stock deletes them at once), so the transaction counts 10, not the inlined
    # rows and its transaction-local file both (20); other connections still see the rows until the commit.
    "flush-in-transaction": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 10)",
        "CREATE TABLE lake.test (i INTEGER)",
        *[f"INSERT INTO lake.test VALUES ({i})" for i in range(10)],
        "BEGIN",
        "SELECT table_name, rows_flushed FROM ducklake_flush_inlined_data('lake')",
        "SELECT COUNT(*) FROM lake.test",
        "SELECT rowid, snapshot_id, * FROM lake.test ORDER BY ALL",
        "COMMIT",
        "SELECT COUNT(*) FROM lake.test",
        "SELECT rowid, snapshot_id, * FROM lake.test AT (VERSION => 4) ORDER BY ALL",
    ],
    # ATTACH … (ENCRYPTED): the initialization batch sets `encrypted` to true; each file's key lands in its
    # catalog row, as stock keeps it (docs/decisions/0440-commit-space.md). Reads of an encrypted lake's
    # files use the file-list template with keys (issue 25's reads), so this session only writes.
    "encrypted-attach": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', ENCRYPTED)",
        "CREATE TABLE lake.small (id INTEGER, s VARCHAR)",
        "INSERT INTO lake.small VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO lake.small SELECT i, 'v' || i FROM range(3000) t(i)",
    ],
    # Inlined ±infinity dates and timestamps: DuckDB's sentinels (±(2^31 − 1) days, ±(2^63 − 1) units).
    "infinities": [
        ATTACH,
        "CREATE TABLE lake.t (ts TIMESTAMP, d DATE, tz TIMESTAMPTZ, ns TIMESTAMP_NS)",
        "INSERT INTO lake.t VALUES ('infinity', 'infinity', 'infinity', 'infinity'), "
        "('-infinity', '-infinity', '-infinity', '-infinity'), (NULL, NULL, NULL, NULL)",
        "SELECT * FROM lake.t ORDER BY ts NULLS LAST",
        "SELECT count(*) FROM lake.t WHERE ts > TIMESTAMP '2000-01-01'",
    ],
    # A VARCHAR holding NUL bytes: DuckDB writes the literal as CONCAT('a', chr(0), 'b'), inlined and in a
    # Parquet file's stats.
    "nul-byte": [
        ATTACH,
        "CREATE TABLE lake.t (s VARCHAR)",
        "INSERT INTO lake.t VALUES ('a' || chr(0) || 'b'), (chr(0)), ('plain')",
        "SELECT s, length(s) FROM lake.t ORDER BY s",
        "INSERT INTO lake.t SELECT chr(0) || i::VARCHAR FROM range(3000) t(i)",
        "SELECT count(*), min(s) = chr(0) || '0', max(length(s)) FROM lake.t",
    ],
    # ALTER TABLE … SET SORTED BY / RESET SORTED BY: DuckLake's sort_info and sort_expression rows; files
    # written after it are sorted by the client; a rolled-back SET leaves the catalog as it was.
    "sorted-by": [
        ATTACH,
        "CREATE TABLE lake.t (a INTEGER, b VARCHAR)",
        "ALTER TABLE lake.t SET SORTED BY (a DESC, b ASC NULLS FIRST)",
        "INSERT INTO lake.t VALUES (1, 'x'), (2, 'y'), (3, NULL)",
        "INSERT INTO lake.t SELECT i % 7, 'v' || i FROM range(3000) t(i)",
        "ALTER TABLE lake.t SET SORTED BY (upper(b))",
        "INSERT INTO lake.t SELECT i, 'w' || i FROM range(2000) t(i)",
        "SELECT a, b FROM lake.t WHERE a < 3 ORDER BY a, b LIMIT 5",
        "ALTER TABLE lake.t RESET SORTED BY",
        "BEGIN",
        "ALTER TABLE lake.t SET SORTED BY (b)",
        "ROLLBACK",
        "SELECT count(*), sum(a) FROM lake.t",
    ],
    # ALTER VIEW … RENAME: DuckLake ends the view's row and re-inserts it under the same id and uuid.
    "view-rename": [
        ATTACH,
        "CREATE TABLE lake.t (a INTEGER)",
        "INSERT INTO lake.t VALUES (1)",
        "CREATE VIEW lake.v AS SELECT a FROM lake.t",
        "ALTER VIEW lake.v RENAME TO v2",
        "SELECT * FROM lake.v2",
        "SELECT * FROM lake.v",
    ],
    # A scalar and a table macro of one name coexist (DuckDB keeps them apart), created in one transaction or
    # one after the other, and dropped one at a time.
    "macro-kinds": [
        ATTACH,
        "BEGIN",
        "CREATE MACRO lake.bar(x) AS x + 1",
        "CREATE MACRO lake.bar(x, y) AS TABLE SELECT x AS a, y AS b",
        "COMMIT",
        "SELECT lake.bar(41)",
        "FROM lake.bar(10, 20)",
        "CREATE MACRO lake.xt(a) AS TABLE SELECT a AS z",
        "CREATE MACRO lake.xt(a) AS 1",
        "SELECT lake.xt(5)",
        "DROP MACRO TABLE lake.xt",
        "SELECT lake.xt(5)",
        "FROM lake.xt(3)",
        "CREATE MACRO lake.xt(a) AS TABLE SELECT a AS z",
        "DROP MACRO lake.xt",
        "FROM lake.xt(3)",
    ],
}

# Sessions in which stock DuckDB itself numbers one commit's data files in no fixed order: flushing a table
# inlined under two schema versions writes one file per version, and the client assigns their data_file_ids
# in whichever order its flush tasks finish (measured against stock alone: 2 runs of 6 swap them). For these
# the catalogs are compared with each side's data_file_ids renumbered by the files' content.
FILE_IDS_BY_CONTENT = ("flush-after-alter", "rewrite-partitioned", "merge-adjacent-partitioned")

# Sessions in which stock's server-side commit (`run.py --server-commit`) numbers one DELETE's delete files in
# no fixed order: a DELETE writing a new delete file for one data file and a replacing one for another got
# ids (3, 4) in one run and (4, 3) in the next (measured 2026-12-01, docs/decisions/0265-staged-delete-files.md).
# For these `ducklake_delete_file` is compared with each side's delete_file_ids renumbered by the rows' content
# (`rewrite-some-files`: its first DELETE writes delete files for data files 0 and 2, numbered 3, 4 or 4, 3).
DELETE_FILE_IDS_BY_CONTENT = ("rewrite-data-files", "rewrite-partitioned", "rewrite-some-files")

# Sessions whose stock catalog is not a valid oracle for some tables: stock runs a commit batch
# non-atomically, so concurrent commits race on `ducklake_table_stats` (measured: duplicated rows with a
# lost update, 2 rows of record_count 3 after 4 single-row inserts). For these the suite checks the
# edge's rows against the known truth instead: one stats row per table with this record_count.
RACY_ON_STOCK = {
    "concurrent-inserts": {"ducklake_table_stats": {"table_id": 1, "record_count": 4},
                           "ducklake_table_column_stats": None},
}


# The catalog rows DuckLake derives from a file's stats (docs/decisions/0620-extra-stats.md), each a wrong
# answer of DuckLake's suite before: VARIANT files' `ducklake_file_variant_stats` rows and the table's merged
# VARIANT stats (fields of one shredded type kept, others dropped), GEOMETRY bounding boxes and types united
# across files, a flushed partitioned file's partition values, and an all-NULL file's value_count 0 (which
# file pruning on `k > 0` reads).
SESSIONS |= {
    "variant-file-stats": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 0)",
        "CREATE TABLE lake.t (v VARIANT)",
        "INSERT INTO lake.t VALUES ({'text': 'hello'}::VARIANT)",
        "INSERT INTO lake.t VALUES ({'text': 'it''s fine'}::VARIANT)",
        "CREATE TABLE lake.u (i INTEGER, v VARIANT)",
        "INSERT INTO lake.u SELECT 1, 42::VARIANT",
        "INSERT INTO lake.u SELECT 2, 'hello'::VARIANT",
        "SELECT count(*) FROM lake.t",
    ],
    "geometry-stats-merge": [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 0)",
        "CREATE TABLE lake.g (g GEOMETRY)",
        "INSERT INTO lake.g VALUES ('POINT (1 2)'::GEOMETRY)",
        "INSERT INTO lake.g VALUES ('LINESTRING Z (5 5 5, 10 10 10)'::GEOMETRY)",
        "INSERT INTO lake.g VALUES ('POINT (-0.0078125 1e12)'::GEOMETRY)",
        "SELECT * FROM lake.g",
    ],
    "flush-partition-values": [
        ATTACH,
        "CREATE TABLE lake.t (id INTEGER, ts TIMESTAMP)",
        "ALTER TABLE lake.t SET PARTITIONED BY (year(ts), month(ts))",
        "INSERT INTO lake.t VALUES (1, '2025-01-15')",
        "CALL ducklake_flush_inlined_data('lake')",
        "MERGE INTO lake.t USING (SELECT 2 AS id, '2025-03-20'::TIMESTAMP AS ts) AS src ON t.id = src.id "
        "WHEN NOT MATCHED THEN INSERT *",
        "SELECT * FROM lake.t ORDER BY id",
    ],
    "all-null-file-stats": [
        ATTACH,
        "CREATE TABLE lake.t (k INTEGER, s VARCHAR)",
        "INSERT INTO lake.t SELECT NULL, 'a' || i FROM range(5) r(i)",
        "CALL ducklake_flush_inlined_data('lake')",
        "INSERT INTO lake.t SELECT NULL, 'b' || i FROM range(3000) r(i)",
        "INSERT INTO lake.t SELECT i, 'c' || i FROM range(3000) r(i)",
        "SELECT count(*) FROM lake.t WHERE k > 0",
    ],
    # Rows a user INSERTs straight into the metadata catalog (Quack APPEND_REQUEST, decision 0710): a tag
    # and a column tag kept beside the comments DuckLake writes, a seeded ducklake_table_stats row whose
    # next_row_id the next commit takes, a duplicate snapshot_changes key refused with stock's text, a row
    # for a later snapshot shown as stock shows it, and tables whose rows are derived refused.
    "metadata-append": [
        ATTACH,
        "CREATE TABLE lake.t (i INTEGER)",
        "INSERT INTO __ducklake_metadata_lake.ducklake_tag VALUES (1, 2, NULL, 'owner', 'alice'), "
        "(1, 1, 7, 'team', 'x')",
        # Rows beginning or ending after the head read back as written.
        "SELECT * FROM __ducklake_metadata_lake.ducklake_tag ORDER BY key",
        "COMMENT ON TABLE lake.t IS 'c1'",
        "SELECT key, value, end_snapshot FROM __ducklake_metadata_lake.ducklake_tag ORDER BY key",
        "INSERT INTO __ducklake_metadata_lake.ducklake_column_tag VALUES (1, 1, 3, NULL, 'pii', 'true')",
        "COMMENT ON COLUMN lake.t.i IS 'col'",
        "SELECT key, value, end_snapshot IS NULL FROM __ducklake_metadata_lake.ducklake_column_tag ORDER BY key",
        "INSERT INTO __ducklake_metadata_lake.ducklake_table_stats VALUES (1, 5, 5, 100)",
        "INSERT INTO lake.t VALUES (1), (2)",
        "SELECT rowid, i FROM lake.t ORDER BY i",
        "SELECT table_id, record_count, next_row_id FROM __ducklake_metadata_lake.ducklake_table_stats",
        "INSERT INTO __ducklake_metadata_lake.ducklake_snapshot_changes VALUES (2, 'orphan', NULL, NULL, NULL)",
        "INSERT INTO __ducklake_metadata_lake.ducklake_snapshot_changes VALUES (40, 'orphan', NULL, NULL, NULL)",
        "SELECT snapshot_id, changes_made FROM __ducklake_metadata_lake.ducklake_snapshot_changes ORDER BY 1",
        "INSERT INTO __ducklake_metadata_lake.ducklake_tag(object_id, key, value, begin_snapshot) "
        "SELECT 1, 'k' || i, 'v', 1 FROM range(3) r(i)",
        "SELECT count(*) FROM __ducklake_metadata_lake.ducklake_tag WHERE value = 'v'",
        "SELECT * FROM lake.t ORDER BY i",
    ],
}
