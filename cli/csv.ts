/**
 * A streaming CSV reader (RFC 4180: `,` separators, `"` quoting with `""` escapes, quoted fields may hold
 * newlines, `\n` or `\r\n` record ends) for `rows`. Each record carries the line it starts on, so an error
 * names the line a person sees in an editor. An unquoted empty field is NULL and a quoted one (`""`) is
 * the empty string, as DuckDB's read_csv reads them.
 */
import { CliError } from "./errors.ts";

/** Characters one record may span (a runaway quote must not buffer a whole file). */
export const MAX_CSV_RECORD_CHARS = 1024 * 1024;

export interface CsvRecord {
  /** 1-based line number where the record starts. */
  line: number;
  fields: (string | null)[];
}

export class CsvReader {
  private field = "";
  private fields: (string | null)[] = [];
  private quoted = false;
  /** Inside quotes; `quoteSeen` is a `"` inside quotes that may be an escape or the closing quote. */
  private inQuotes = false;
  private quoteSeen = false;
  private pendingCr = false;
  private line = 1;
  private recordLine = 1;
  private recordChars = 0;
  private started = false;

  /** Feeds a chunk; returns the records it completed. */
  push(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    for (const ch of chunk) this.step(ch, out);
    return out;
  }

  /** Ends the input; returns the last record if it had no newline. */
  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.inQuotes && !this.quoteSeen)
      throw new CliError("InvalidCsv", `line ${this.recordLine}: a quoted field is never closed`);
    if (this.started) this.endRecord(out);
    return out;
  }

  private step(ch: string, out: CsvRecord[]): void {
    if (this.pendingCr) {
      this.pendingCr = false;
      if (ch === "\n") {
        if (this.inQuotes && !this.quoteSeen) this.field += ch; // a quoted CRLF keeps both characters
        return;
      }
    }
    if (++this.recordChars > MAX_CSV_RECORD_CHARS)
      throw new CliError(
        "InvalidCsv",
        `line ${this.recordLine}: a record is longer than MAX_CSV_RECORD_CHARS (${MAX_CSV_RECORD_CHARS})`,
      );
    if (this.inQuotes) {
      if (this.quoteSeen) {
        this.quoteSeen = false;
        if (ch === '"') {
          this.field += '"';
          return;
        }
        this.inQuotes = false; // the quote closed the field; `ch` is what follows it
      } else if (ch === '"') {
        this.quoteSeen = true;
        return;
      } else {
        if (ch === "\n" || ch === "\r") this.line++;
        if (ch === "\r") this.pendingCr = true;
        this.field += ch;
        return;
      }
    }
    this.started = true;
    if (ch === ",") {
      this.endField();
    } else if (ch === "\n" || ch === "\r") {
      this.pendingCr = ch === "\r";
      this.endRecord(out);
      this.line++;
      this.recordLine = this.line;
    } else if (ch === '"') {
      if (this.field !== "" || this.quoted)
        throw new CliError("InvalidCsv", `line ${this.line}: a quote inside an unquoted field`);
      this.inQuotes = true;
      this.quoted = true;
    } else {
      if (this.quoted) throw new CliError("InvalidCsv", `line ${this.line}: text after a closing quote`);
      this.field += ch;
    }
  }

  private endField(): void {
    this.fields.push(this.field === "" && !this.quoted ? null : this.field);
    this.field = "";
    this.quoted = false;
  }

  private endRecord(out: CsvRecord[]): void {
    this.endField();
    // A blank line is no record (a trailing newline, or spacing a person left).
    if (!(this.fields.length === 1 && this.fields[0] === null))
      out.push({ line: this.recordLine, fields: this.fields });
    this.fields = [];
    this.recordChars = 0;
    this.started = false;
  }
}
