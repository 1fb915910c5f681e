/**
 * Cuts a stream of ordered entries into sorted-run partitions of about `targetBytes` each, writing every
 * finished partition at once (put-if-absent) so a step holds at most one partition's bytes in memory.
 */
import type { SortedEntry } from "../api.ts";
import { type MaintenanceContext, writeTable } from "../maintenance.ts";
import { SstBuilder } from "../sst/builder.ts";
import type { TableRecord } from "../table-record.ts";

/** Per-entry overhead of the block format beyond key and value bytes (varints, prefix sharing aside). */
const ENTRY_OVERHEAD = 4;

export class PartitionWriter {
  readonly written: TableRecord[] = [];
  bytesWritten = 0;
  private builder: SstBuilder | undefined;
  private pending = 0;

  constructor(
    private readonly ctx: MaintenanceContext,
    private readonly targetBytes: number,
    /** The sorted run the partitions belong to (table-record.ts). */
    private readonly run: number,
  ) {}

  async add(e: SortedEntry): Promise<void> {
    this.builder ??= new SstBuilder();
    this.builder.add(e);
    this.pending += e.key.length + (e.value?.length ?? 0) + ENTRY_OVERHEAD;
    if (this.pending >= this.targetBytes) await this.cut();
  }

  /** Writes the partition being built, if it has any entry. */
  async cut(): Promise<void> {
    const b = this.builder;
    if (b === undefined) return;
    this.builder = undefined;
    this.pending = 0;
    const built = b.finish();
    const rec = await writeTable(this.ctx, built, 1, this.run);
    this.written.push(rec);
    this.bytesWritten += built.bytes.length;
  }
}
