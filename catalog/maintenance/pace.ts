/**
 * Pacing of maintenance steps (decision docs/decisions/0325-paced-maintenance.md): a step that scans,
 * decodes or lays out rows in memory awaits the host's pause (a yield to the event loop) after every
 * MAINTENANCE_ROWS_PER_PAUSE rows, so a large step never holds the writer's event loop — and the
 * appenders' commits waiting on it — for more than one bounded stretch. Parquet encoding and decoding are
 * paced by row group in `parquet/` (`writeParquetPaced`, `readParquet`'s `pause`).
 */
import { PACED_ROWS_PER_ROW_GROUP } from "../../parquet/index.ts";

/** Rows (inlined rows scanned, file rows re-laid) a maintenance step handles between two pauses. */
export const MAINTENANCE_ROWS_PER_PAUSE = 2048;

/** Rows per row group of the files maintenance writes: one row group is one paced encode stretch. */
export const MAINTENANCE_ROWS_PER_ROW_GROUP = PACED_ROWS_PER_ROW_GROUP;

/** The host's yield to its event loop. */
export type Pause = () => Promise<void>;

/** No yield at all (a caller that runs nothing else meanwhile, such as a one-off tool). */
export const noPause: Pause = () => Promise.resolve();

/** Counts rows handled and awaits `pause` after every `every` of them. */
export class Pacer {
  private since = 0;
  constructor(
    readonly pause: Pause,
    private readonly every: number = MAINTENANCE_ROWS_PER_PAUSE,
  ) {}

  /** One row handled; pauses when the stretch is full. */
  async tick(): Promise<void> {
    if (++this.since >= this.every) {
      this.since = 0;
      await this.pause();
    }
  }
}
