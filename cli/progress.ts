/**
 * A progress bar on stderr for long work (uploads, exports). On a terminal it redraws one line; when
 * stderr is not a terminal (CI, pipes) it prints a line at most every 10% so logs stay short.
 */
export class Progress {
  private lastDecile = -1;
  private lastLine = "";
  private forced = false;
  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  /** `note` is appended to the line (e.g. a running count of what has landed). */
  update(done: number, note = ""): void {
    const tail = note ? ` ${note}` : "";
    const frac = this.total === 0 ? 1 : Math.min(1, done / this.total);
    const pct = Math.floor(frac * 100);
    if (this.out.isTTY) {
      const width = 30;
      const fill = Math.round(frac * width);
      this.out.write(
        `\r${this.label} [${"#".repeat(fill)}${"-".repeat(width - fill)}] ${pct}% ${done}/${this.total}${tail}`,
      );
      return;
    }
    const decile = Math.floor(pct / 10);
    if (decile === this.lastDecile && !this.forced) return;
    this.lastDecile = decile;
    const line = `${this.label} ${pct}% ${done}/${this.total}${tail}\n`;
    if (line !== this.lastLine) this.out.write(line);
    this.lastLine = line;
  }

  /** Draws the final state once more (off a terminal too, when its note differs from the last line). */
  finish(note = ""): void {
    this.forced = true;
    this.update(this.total, note);
    this.forced = false;
    if (this.out.isTTY) this.out.write("\n");
  }
}

/**
 * Progress when the total is unknown (a stream on stdin): a running count, redrawn on a terminal, else a
 * line each time it passes another multiple of `every`.
 */
export class Counter {
  private lastStep = 0;
  constructor(
    private readonly label: string,
    private readonly every: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number, note = ""): void {
    const tail = note ? ` ${note}` : "";
    if (this.out.isTTY) {
      this.out.write(`\r${this.label} ${done}${tail}`);
      return;
    }
    const step = Math.floor(done / this.every);
    if (step === this.lastStep) return;
    this.lastStep = step;
    this.out.write(`${this.label} ${done}${tail}\n`);
  }

  finish(done: number, note = ""): void {
    if (this.out.isTTY) this.out.write(`\r${this.label} ${done}${note ? ` ${note}` : ""}\n`);
    else this.out.write(`${this.label} ${done}${note ? ` ${note}` : ""}\n`);
  }
}

/**
 * Progress of rows acknowledged by the API (never rows merely sent): the count, the rate since the start,
 * and, when the input's size is known, an estimated total and ETA (estimated from the bytes the
 * acknowledged rows took). On a terminal it redraws one line; off one it prints a line at most every
 * `ROWS_PROGRESS_MIN_INTERVAL_MS` and at the end.
 */
export const ROWS_PROGRESS_MIN_INTERVAL_MS = 2_000;

export class RowsProgress {
  private readonly started = Date.now();
  private lastPrinted = 0;
  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  /** The line for `acked` rows; `ackedBytes` of `totalBytes` (null: unknown size) estimate the total. */
  line(acked: number, ackedBytes: number, totalBytes: number | null, note = ""): string {
    const seconds = Math.max(0.001, (Date.now() - this.started) / 1000);
    const rate = acked / seconds;
    const parts = [`${this.label} ${acked} rows acknowledged`];
    if (totalBytes !== null && ackedBytes > 0 && acked > 0) {
      const frac = Math.min(1, ackedBytes / Math.max(1, totalBytes));
      const estimate = Math.round(acked / frac);
      const eta = rate > 0 ? Math.max(0, (estimate - acked) / rate) : Number.NaN;
      parts.push(`${Math.floor(frac * 100)}% of ~${estimate}`);
      parts.push(`${Math.round(rate)} rows/s`);
      if (Number.isFinite(eta)) parts.push(`ETA ${Math.ceil(eta)}s`);
    } else {
      parts.push(`${Math.round(rate)} rows/s`);
    }
    if (note) parts.push(note);
    return parts.join(", ");
  }

  update(acked: number, ackedBytes: number, totalBytes: number | null, note = ""): void {
    const text = this.line(acked, ackedBytes, totalBytes, note);
    if (this.out.isTTY) {
      this.out.write(`\r${text}\x1b[K`);
      return;
    }
    const now = Date.now();
    if (now - this.lastPrinted < ROWS_PROGRESS_MIN_INTERVAL_MS) return;
    this.lastPrinted = now;
    this.out.write(`${text}\n`);
  }

  /** The final line: the count acknowledged and the rate; it claims no percentage it did not reach. */
  finish(acked: number, note = ""): void {
    const seconds = Math.max(0.001, (Date.now() - this.started) / 1000);
    const text = `${this.label} ${acked} rows acknowledged in ${seconds.toFixed(1)}s (${Math.round(acked / seconds)} rows/s)${note ? `, ${note}` : ""}`;
    this.out.write(this.out.isTTY ? `\r${text}\x1b[K\n` : `${text}\n`);
  }
}
