/** RFC 4180 CSV for the ducklake_* table dumps: header row, quoted where needed, NULL as an empty field. */
export type Cell = string | number | boolean | null;

function field(v: Cell): string {
  if (v === null) return "";
  const s = String(v);
  return /[",\r\n]/.test(s) || s === "" ? `"${s.replaceAll('"', '""')}"` : s;
}

export function toCsv(columns: readonly string[], rows: readonly Record<string, Cell>[]): string {
  const lines = [columns.map((c) => field(c)).join(",")];
  for (const r of rows) lines.push(columns.map((c) => field(r[c] ?? null)).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
