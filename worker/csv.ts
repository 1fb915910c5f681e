/**
 * RFC 4180 CSV for the ducklake_* table pages: header line, fields quoted where needed, CRLF. Cells are
 * DuckDB's texts (catalog/values/ renders them); NULL is an empty field and an empty string `""`, which
 * is how DuckDB's CSV reader tells them apart.
 */
function field(v: string | null): string {
  if (v === null) return "";
  return /[",\r\n]/.test(v) || v === "" ? `"${v.replaceAll('"', '""')}"` : v;
}

/** The header line of a CSV page. */
export function csvHeader(columns: readonly string[]): string {
  return `${columns.map((c) => field(c)).join(",")}\r\n`;
}

/** One CSV line of DuckDB texts. */
export function csvLine(texts: readonly (string | null)[]): string {
  return `${texts.map((t) => field(t)).join(",")}\r\n`;
}
