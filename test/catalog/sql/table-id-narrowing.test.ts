/**
 * A metadata query the door evaluates (catalog/sql/query/, decision 0420) whose WHERE restricts a per-table
 * relation to one `table_id` reads that table's key prefix only (`relations.ts`, `PER_TABLE`): every scan
 * of the relation's kind stays inside the table's prefix, and the store reads and bytes are the same in a
 * lake of 2 tables as in one of 30. The same relation unrestricted reads more in the larger lake, which
 * shows the counts see the difference. Counts only, never times.
 */
import { describe, expect, it } from "vitest";
import { compareBytes, Kind, keys, prefixEnd } from "../../../catalog/keys.ts";
import { answerRead, splitStatements } from "../../../catalog/sql/index.ts";
import type { Bytes, ReadView, ScanRange } from "../../../storage/api.ts";
import { lakeWithTables, ReadCounter } from "../support.ts";

const columns = [
  { name: "id", type: "int64" },
  { name: "s", type: "varchar" },
  { name: "n", type: "int32" },
];

function lakeWith(tables: number): Promise<ReadView> {
  return lakeWithTables(`table-id-narrowing-${tables}`, tables, columns);
}

/** Records every scan range a reader asks the view for. */
function recordScans(view: ReadView, ranges: ScanRange[]): ReadView {
  return new Proxy(view, {
    get(target, prop, receiver) {
      if (prop === "scan") {
        return (range: ScanRange) => {
          ranges.push(range);
          return target.scan(range);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function measure(view: ReadView, sql: string) {
  const [stmt] = splitStatements(sql);
  if (!stmt) throw new Error("no statement");
  const counter = new ReadCounter();
  const ranges: ScanRange[] = [];
  const res = await answerRead({ view: counter.wrapView(recordScans(view, ranges)), memo: new Map() }, stmt);
  return { rows: res.rows, reads: counter.reads, bytes: counter.bytes, ranges };
}

/** A scan's key interval [lo, hi) from its start, end and prefix (undefined: unbounded). */
function interval(r: ScanRange): { lo: Bytes | undefined; hi: Bytes | undefined } {
  let lo = r.start;
  let hi = r.end;
  if (r.prefix !== undefined) {
    if (lo === undefined || compareBytes(r.prefix, lo) > 0) lo = r.prefix;
    const pe = prefixEnd(r.prefix);
    if (pe !== undefined && (hi === undefined || compareBytes(pe, hi) < 0)) hi = pe;
  }
  return { lo, hi };
}

/** Whether a scan touches the column kind (current or history keys) outside table `t`'s prefix. */
function outsideTable(range: ScanRange, t: number): boolean {
  const { lo, hi } = interval(range);
  for (const [kindPrefix, tablePrefix] of [
    [keys.current(Kind.column), keys.current(Kind.column, t)],
    [keys.historyPrefix(Kind.column), keys.historyPrefix(Kind.column, t)],
  ] as const) {
    const kindEnd = prefixEnd(kindPrefix) as Bytes;
    const overlaps =
      (lo === undefined || compareBytes(lo, kindEnd) < 0) &&
      (hi === undefined || compareBytes(hi, kindPrefix) > 0);
    if (!overlaps) continue;
    const tableEnd = prefixEnd(tablePrefix) as Bytes;
    if (lo === undefined || compareBytes(lo, tablePrefix) < 0) return true;
    if (hi === undefined || compareBytes(hi, tableEnd) > 0) return true;
  }
  return false;
}

describe("a metadata query narrowed to one table_id reads that table's key prefix", () => {
  const narrowed =
    'SELECT column_id, column_name FROM "main".ducklake_column WHERE table_id = 1 ORDER BY column_id';
  const whole = 'SELECT count(*) FROM "main".ducklake_column';

  it("scans only table 1's column keys, with the same reads and bytes at 2 and 30 tables", async () => {
    const small = await measure(await lakeWith(2), narrowed);
    const large = await measure(await lakeWith(30), narrowed);
    expect(large.rows).toEqual(small.rows);
    expect(small.rows.map((r) => r[1])).toEqual(["id", "s", "n"]);
    for (const m of [small, large]) {
      expect(m.ranges.filter((r) => outsideTable(r, 1))).toEqual([]);
    }
    expect(large.reads).toBe(small.reads);
    expect(large.bytes).toBe(small.bytes);
  });

  it("the same relation unrestricted reads every table's keys (the counts see it)", async () => {
    const small = await measure(await lakeWith(2), whole);
    const large = await measure(await lakeWith(30), whole);
    expect(large.ranges.some((r) => outsideTable(r, 1))).toBe(true);
    expect(large.bytes).toBeGreaterThan(small.bytes);
  });
});
