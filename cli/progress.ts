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
