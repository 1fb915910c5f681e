/**
 * Cuts a stream of ordered entries into sorted-run partitions of about `targetBytes` each, writing every
 * finished partition at once (put-if-absent) so a step holds at most one partition's bytes in memory.
 * A partition also ends before each of the host's partition cuts (`WriterOptions.partitionCuts`), so no
 * partition straddles one (docs/decisions/0186-partition-moves.md).
 */
import type { Bytes, SortedEntry } from "../api.ts";
import { compareBytes } from "../bytes.ts";
import { InvalidArgument } from "../errors.ts";
import { type MaintenanceContext, writeTable } from "../maintenance.ts";
import { SstBuilder } from "../sst/builder.ts";
import type { TableRecord } from "../table-record.ts";

/** Per-entry overhead of the block format beyond key and value bytes (varints, prefix sharing aside). */
const ENTRY_OVERHEAD = 4;

/** Most partition cuts a host may name: each entry written is compared against them. */
export const PARTITION_CUTS_MAX = 16;
/** Longest partition cut key, bytes. */
export const PARTITION_CUT_KEY_BYTES_MAX = 64;

/** The host's cuts sorted and deduplicated; InvalidArgument past the limits. */
export function partitionCuts(cuts: readonly Bytes[] | undefined): readonly Bytes[] {
  const list = [...(cuts ?? [])];
  for (const c of list) {
    if (c.length === 0 || c.length > PARTITION_CUT_KEY_BYTES_MAX)
      throw new InvalidArgument(
        `a partition cut must be 1 to ${PARTITION_CUT_KEY_BYTES_MAX} bytes long, got ${c.length}`,
      );
  }
  list.sort(compareBytes);
  const unique = list.filter((c, i) => i === 0 || compareBytes(list[i - 1]!, c) !== 0);
  if (unique.length > PARTITION_CUTS_MAX)
    throw new InvalidArgument(`at most ${PARTITION_CUTS_MAX} partition cuts, got ${unique.length}`);
  return unique;
}

export class PartitionWriter {
  readonly written: TableRecord[] = [];
  bytesWritten = 0;
  private builder: SstBuilder | undefined;
  private pending = 0;
  private lastKey: Bytes | undefined;

  constructor(
    private readonly ctx: MaintenanceContext,
    private readonly targetBytes: number,
    /** The sorted run the partitions belong to (table-record.ts). */
    private readonly run: number,
  ) {}

  async add(e: SortedEntry): Promise<void> {
    if (this.builder !== undefined && this.lastKey !== undefined && this.crossesCut(this.lastKey, e.key))
      await this.cut();
    this.lastKey = e.key;
    this.builder ??= new SstBuilder();
    this.builder.add(e);
    this.pending += e.key.length + (e.value?.length ?? 0) + ENTRY_OVERHEAD;
    if (this.pending >= this.targetBytes) await this.cut();
  }

  /** Whether a cut lies in (a, b]: `b` must start a new partition. */
  private crossesCut(a: Bytes, b: Bytes): boolean {
    for (const c of this.ctx.partitionCuts) {
      if (compareBytes(c, a) > 0 && compareBytes(c, b) <= 0) return true;
    }
    return false;
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
