/**
 * A progress bar on stderr for long work (uploads, exports). On a terminal it redraws one line; when
 * stderr is not a terminal (CI, pipes) it prints a line at most every 10% so logs stay short.
 */
export class Progress {
  private lastDecile = -1;
  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number): void {
    const frac = this.total === 0 ? 1 : Math.min(1, done / this.total);
    const pct = Math.floor(frac * 100);
    if (this.out.isTTY) {
      const width = 30;
      const fill = Math.round(frac * width);
      this.out.write(
        `\r${this.label} [${"#".repeat(fill)}${"-".repeat(width - fill)}] ${pct}% ${done}/${this.total}`,
      );
      return;
    }
    const decile = Math.floor(pct / 10);
    if (decile === this.lastDecile) return;
    this.lastDecile = decile;
    this.out.write(`${this.label} ${pct}% ${done}/${this.total}\n`);
  }

  finish(): void {
    this.update(this.total);
    if (this.out.isTTY) this.out.write("\n");
  }
}
