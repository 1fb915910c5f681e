"""The value property of issue 26: seeded random values of every type DuckLake inlines or writes to Parquet,
written through stock DuckDB over Quack into ducklake-edge and into a stock server, every row read back and
compared (run.py compares each statement's result and then the catalogs). Bounded: SEEDS sessions of
INLINED_ROWS inlined rows and FILE_ROWS rows in one Parquet file each (a few seconds per session).

Each session: one table with a column per type, an INSERT small enough to be inlined (values as literals
in DuckLake's commit batch or staged rows), an INSERT past the inlining limit (a Parquet file and its
stats), a SELECT of every row, and an UPDATE and a DELETE of some rows (inlined row versions) read back.
"""
import random

# Seeds run by `npm run test:quack` (both servers, with and without --server-commit). Fixed so a failure
# reproduces; change them to explore.
SEEDS = (26, 2026, 440)
INLINED_ROWS = 8
FILE_ROWS = 40

INT_RANGES = {
    "TINYINT": (-(2**7), 2**7 - 1), "SMALLINT": (-(2**15), 2**15 - 1), "INTEGER": (-(2**31), 2**31 - 1),
    # Stock writes (U)HUGEINT to Parquet as DOUBLE, and a value near the type's end rounds past it and
    # cannot be read back (on stock too): their values stay within 2^100.
    "BIGINT": (-(2**63), 2**63 - 1), "HUGEINT": (-(2**100), 2**100), "UTINYINT": (0, 2**8 - 1),
    "USMALLINT": (0, 2**16 - 1), "UINTEGER": (0, 2**32 - 1), "UBIGINT": (0, 2**64 - 1),
    "UHUGEINT": (0, 2**100),
}
DECIMALS = ((4, 2), (9, 3), (18, 6), (38, 10), (38, 0))


def q(s):
    return "'" + s.replace("'", "''") + "'"


def text_value(r):
    pick = r.randrange(6)
    if pick == 0:
        return "''"
    if pick == 1:  # NUL bytes inside and at the ends
        return f"({q('a')} || chr(0) || {q(str(r.randrange(100)))} || chr(0))"
    if pick == 2:
        return q("it's \"quoted\" \\ back")
    if pick == 3:
        return q("héllo ✓ 𝄞")
    return q("".join(r.choice("abcxyz019 ,;()[]{}") for _ in range(r.randrange(1, 12))))


def int_value(r, lo, hi):
    return str(r.choice([lo, hi, 0, 1, -1 if lo < 0 else 2, r.randint(lo, hi), r.randint(lo, hi)]))


def decimal_value(r, width, scale):
    digits = width - scale
    whole = r.choice([0, 10**digits - 1, r.randrange(10**digits)])
    frac = r.randrange(10**scale) if scale else 0
    sign = r.choice(["", "-"])
    return f"{sign}{whole}" + (f".{frac:0{scale}d}" if scale else "") + f"::DECIMAL({width},{scale})"


def float_value(r, kind):
    v = r.choice(["'nan'", "'inf'", "'-inf'", "-0.0", "0.0", repr(r.uniform(-1e6, 1e6)), "1e-30", "3.4e37"])
    return f"{v}::{kind}"


def date_value(r):
    return r.choice(["'infinity'", "'-infinity'", "'1970-01-01'", "'0001-01-01'", "'9999-12-31'",
                     f"'{r.randint(1900, 2100)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}'"]) + "::DATE"


def ts_value(r, kind, frac_digits, infinite=True):
    base = f"{r.randint(1900, 2100)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d} " \
           f"{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}"
    if frac_digits:
        base += "." + "".join(str(r.randrange(10)) for _ in range(frac_digits))
    # Stock DuckLake cannot write an infinite TIMESTAMP_S/_MS/_NS to Parquet ("Could not convert
    # Timestamp(S) to Timestamp(US)"): those units get finite values only.
    return r.choice(["'infinity'", "'-infinity'", f"'{base}'", f"'{base}'"] if infinite else [f"'{base}'"]) + f"::{kind}"


# What stock cannot write into a Parquet VARIANT ("Can't convert VARIANT of type … to Parquet VARIANT"):
# TIME_NS, TIME WITH TIME ZONE, TIMESTAMP_S/_MS, INTERVAL and integers past INT64. Values bound for a
# Parquet file (a file insert, a flush) leave those out; inlined values take every type.
PARQUET_INT_TYPES = [t for t in INT_RANGES if "HUGEINT" not in t]


def variant_value(r, depth=0, parquet=False):
    """A value cast to VARIANT: each keeps its own type in a VARIANT, and DuckLake inlines it as the literal
    of that value, which the server types again (a DOUBLE 1.5 comes back as DECIMAL(2,1) on stock too).
    Lists hold elements of one type: a list DuckDB would unify is refused by ducklake-edge (decision 0700)."""
    pick = r.randrange(17 if depth < 2 else 14)
    if parquet and pick in (10, 13):
        pick = 6
    if pick == 0:
        return "NULL"
    if pick == 1:
        lo, hi = INT_RANGES[r.choice(PARQUET_INT_TYPES if parquet else list(INT_RANGES))]
        return int_value(r, lo, hi)
    if pick == 2:
        # A DECIMAL(38,0) reads back as an integer literal past INT64 (see PARQUET_INT_TYPES).
        w, sc = r.choice([d for d in DECIMALS if not (parquet and d == (38, 0))])
        return decimal_value(r, w, sc)
    if pick == 3:
        return repr(r.choice([0.5, -2.25, 1e-30, 3.4e37, r.uniform(-1e6, 1e6)])) + "::DOUBLE"
    if pick == 4:
        return float_value(r, r.choice(["FLOAT", "DOUBLE"]))
    if pick == 5:
        return r.choice(["true", "false"])
    if pick == 6:
        return text_value(r)
    if pick == 7:
        return date_value(r)
    if pick == 8:
        return ts_value(r, r.choice(["TIMESTAMP", "TIMESTAMPTZ"]), 6) if r.random() < 0.5 else \
            ts_value(r, r.choice(["TIMESTAMP_NS"] if parquet else ["TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS"]), 3, False)
    if pick == 9:
        return f"'{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}.{r.randrange(10**6):06d}'::" + \
            r.choice(["TIME"] if parquet else ["TIME", "TIME_NS"])
    if pick == 10:
        return f"'{r.randrange(24):02d}:{r.randrange(60):02d}:00{r.choice(['+01', '-05:30', '+00'])}'::TIMETZ"
    if pick == 11:
        return "'" + "".join(f"\\x{r.randrange(256):02X}" for _ in range(r.randrange(5))) + "'::BLOB"
    if pick == 12:
        return f"'{r.getrandbits(128):032x}'::UUID"
    if pick == 13:
        return f"INTERVAL '{r.randint(0, 30)} months {r.randint(0, 40)} days {r.randrange(10**9)} microseconds'"
    if pick == 14:
        return "{" + ", ".join(f"'f{k}': {variant_value(r, depth + 1, parquet)}" for k in range(r.randint(1, 3))) + "}"
    if pick == 15:
        return "[" + ", ".join(r.choice(["NULL", str(r.randint(-9, 9))]) for _ in range(r.randrange(5))) + "]"
    return "[" + ", ".join(f"{{'a': {r.choice(['NULL', str(r.randint(-9, 9))])}, 'b': {text_value(r)}}}"
                           for _ in range(r.randrange(3))) + "]"


COLUMNS = [
    ("b", "BOOLEAN", lambda r: r.choice(["true", "false"])),
    *[(f"i_{t.lower()}", t, (lambda t: lambda r: f"'{int_value(r, *INT_RANGES[t])}'::{t}")(t)) for t in INT_RANGES],
    ("f", "FLOAT", lambda r: float_value(r, "FLOAT")),
    ("d", "DOUBLE", lambda r: float_value(r, "DOUBLE")),
    *[(f"dec_{w}_{s}", f"DECIMAL({w},{s})", (lambda w, s: lambda r: decimal_value(r, w, s))(w, s))
      for w, s in DECIMALS],
    ("dt", "DATE", date_value),
    ("tm", "TIME", lambda r: f"'{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}.{r.randrange(10**6):06d}'::TIME"),
    ("ts", "TIMESTAMP", lambda r: ts_value(r, "TIMESTAMP", 6)),
    ("ts_s", "TIMESTAMP_S", lambda r: ts_value(r, "TIMESTAMP_S", 0, False)),
    ("ts_ms", "TIMESTAMP_MS", lambda r: ts_value(r, "TIMESTAMP_MS", 3, False)),
    ("ts_ns", "TIMESTAMP_NS", lambda r: ts_value(r, "TIMESTAMP_NS", 9, False)),
    ("tstz", "TIMESTAMPTZ", lambda r: ts_value(r, "TIMESTAMPTZ", 6)),
    # Parquet holds no negative interval part (stock refuses to write one), so parts are non-negative.
    ("iv", "INTERVAL", lambda r: f"INTERVAL '{r.randint(0, 30)} months {r.randint(0, 40)} days {r.randrange(10**9)} microseconds'"),
    ("s", "VARCHAR", text_value),
    ("bl", "BLOB", lambda r: "'" + "".join(f"\\x{r.randrange(256):02X}" for _ in range(r.randrange(6))) + "'::BLOB"),
    ("u", "UUID", lambda r: f"'{r.getrandbits(128):032x}'::UUID"),
    ("l", "INTEGER[]", lambda r: "[" + ", ".join(r.choice(["NULL", str(r.randint(-9, 9))]) for _ in range(r.randrange(4))) + "]"),
    ("st", "STRUCT(a INTEGER, b VARCHAR)", lambda r: f"{{'a': {r.randint(-5, 5)}, 'b': {text_value(r)}}}"),
    ("m", "MAP(VARCHAR, INTEGER)", lambda r: "MAP {" + ", ".join(f"'k{k}': {r.randint(-9, 9)}" for k in range(r.randrange(3))) + "}"),
    ("va", "VARIANT", lambda r: variant_value(r, parquet=True)),
]


def row(r, rid):
    vals = [str(rid)]
    for _name, _type, gen in COLUMNS:
        vals.append("NULL" if r.random() < 0.12 else gen(r))
    return "(" + ", ".join(vals) + ")"


def session(seed):
    r = random.Random(seed)
    cols = ", ".join(f"{name} {typ}" for name, typ, _ in COLUMNS)
    names = ", ".join(name for name, _, _ in COLUMNS)
    inlined = ", ".join(row(r, i) for i in range(INLINED_ROWS))
    files = ", ".join(row(r, INLINED_ROWS + i) for i in range(FILE_ROWS))
    return [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 10)",
        f"CREATE TABLE lake.v (id INTEGER, {cols})",
        f"INSERT INTO lake.v VALUES {inlined}",
        f"INSERT INTO lake.v VALUES {files}",
        f"SELECT id, {names} FROM lake.v ORDER BY id",
        f"UPDATE lake.v SET s = {text_value(r)}, dec_38_10 = {decimal_value(r, 38, 10)} WHERE id % 3 = 1",
        "DELETE FROM lake.v WHERE id % 5 = 2",
        f"SELECT id, {names} FROM lake.v ORDER BY id",
    ]


def variant_session(seed):
    """VARIANT values inlined and read back across an UPDATE, a DELETE and time travel: table w with values of
    every type (never flushed), table p with the values a Parquet VARIANT holds, flushed to Parquet."""
    r = random.Random(seed)
    every = ", ".join(f"({i}, {variant_value(r)})" for i in range(INLINED_ROWS))
    safe = ", ".join(f"({i}, {variant_value(r, parquet=True)})" for i in range(INLINED_ROWS))
    return [
        "ATTACH '{attach}' AS lake (DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 10)",
        "CREATE TABLE lake.w (id INTEGER, va VARIANT)",
        "CREATE TABLE lake.p (id INTEGER, va VARIANT)",
        f"INSERT INTO lake.w VALUES {every}",
        f"INSERT INTO lake.p VALUES {safe}",
        "SELECT id, va, variant_typeof(va), va::VARCHAR FROM lake.w ORDER BY id",
        f"UPDATE lake.w SET va = {variant_value(r)} WHERE id % 3 = 1",
        f"UPDATE lake.p SET va = {variant_value(r, parquet=True)} WHERE id % 3 = 1",
        "DELETE FROM lake.w WHERE id % 4 = 2",
        "DELETE FROM lake.p WHERE id % 4 = 2",
        "SELECT id, va, variant_typeof(va) FROM lake.w AT (VERSION => 3) ORDER BY id",
        "SELECT id, va, variant_typeof(va), va::VARCHAR FROM lake.w ORDER BY id",
        "CALL ducklake_flush_inlined_data('lake', table_name => 'p')",
        "SELECT id, va, variant_typeof(va), va::VARCHAR FROM lake.p ORDER BY id",
        "SELECT id, va FROM lake.p AT (VERSION => 4) ORDER BY id",
        # Known difference (docs/decisions/0700-variant-values.md): after a server-side flush stock clears the
        # flushed VARIANT column's min/max (a file has none for it), ducklake-edge keeps the inlined rows';
        # DuckLake builds VARIANT statistics from extra_stats alone, so no answer depends on them.
        "SELECT table_id, column_id, contains_null, contains_nan, extra_stats, "
        "CASE WHEN table_id = 2 AND column_id = 2 THEN 'flushed' ELSE min_value || ' .. ' || max_value END "
        "FROM __ducklake_metadata_lake.ducklake_table_column_stats ORDER BY ALL",
    ]


VALUE_SESSIONS = {f"values-seed-{s}": session(s) for s in SEEDS}
VALUE_SESSIONS |= {f"values-variant-seed-{s}": variant_session(s) for s in SEEDS}
