/**
 * Read-cost counters. One instance may be shared by every reader of a store (or a benchmark), so tests
 * and benchmarks assert cost by counting instead of timing.
 */
export class ReadCounters {
  /** R2 GET calls issued. */
  r2Gets = 0;
  /** R2 HEAD calls (only on the error path of an open). */
  r2Heads = 0;
  /** Body bytes those GETs returned. */
  bytesRead = 0;
  /** Lookups answered by the object cache / not found there. */
  cacheHits = 0;
  cacheMisses = 0;
  /** Data blocks currently held by reads in progress (a scan holds its current block and one read ahead). */
  blocksResident = 0;
  /** High-water mark of blocksResident since creation or the last reset(). */
  maxBlocksResident = 0;
  /** Data blocks decoded (from R2 or the cache). */
  blocksRead = 0;
  /** Block checksums computed (CRC32C over a block: once per byte array that entered this isolate). */
  blockChecksums = 0;
  /** Block reads that skipped it: the cache handed back bytes already checked (verified-blocks.ts). */
  blockChecksumsSkipped = 0;
  /** Block-fence windows fetched before their table's metadata (docs/decisions/0175-block-fences.md). */
  fenceWindows = 0;
  /** Bytes those windows asked for (part of bytesRead). */
  fenceWindowBytes = 0;
  /** Blocks those windows held once verified against the real index and their checksums. */
  fenceBlocksAdopted = 0;
  /**
   * Blocks a windowed range still needed after its windows arrived (a window cut short by a bound, a failed
   * or short GET, a block that failed its checksum): fetched the ordinary way.
   */
  fenceFallbacks = 0;
  /** Tables whose manifest fences disagreed with their index: their windows were dropped, never used. */
  fenceMismatches = 0;
  /** Tables fetched whole by their open, blocks with the metadata (SstOpenOptions.wholeBytesMax). */
  wholeTables = 0;

  hold(): void {
    this.blocksResident++;
    if (this.blocksResident > this.maxBlocksResident) this.maxBlocksResident = this.blocksResident;
  }

  release(): void {
    this.blocksResident--;
  }

  /** Zeroes the totals (not blocksResident, which tracks live reads). */
  reset(): void {
    this.r2Gets = 0;
    this.r2Heads = 0;
    this.bytesRead = 0;
    this.cacheHits = 0;
    this.cacheMisses = 0;
    this.blocksRead = 0;
    this.blockChecksums = 0;
    this.blockChecksumsSkipped = 0;
    this.fenceWindows = 0;
    this.fenceWindowBytes = 0;
    this.fenceBlocksAdopted = 0;
    this.fenceFallbacks = 0;
    this.fenceMismatches = 0;
    this.wholeTables = 0;
    this.maxBlocksResident = this.blocksResident;
  }

  snapshot(): {
    r2Gets: number;
    r2Heads: number;
    bytesRead: number;
    cacheHits: number;
    cacheMisses: number;
    blocksResident: number;
    maxBlocksResident: number;
    blocksRead: number;
    blockChecksums: number;
    blockChecksumsSkipped: number;
    fenceWindows: number;
    fenceWindowBytes: number;
    fenceBlocksAdopted: number;
    fenceFallbacks: number;
    fenceMismatches: number;
    wholeTables: number;
  } {
    return {
      r2Gets: this.r2Gets,
      r2Heads: this.r2Heads,
      bytesRead: this.bytesRead,
      cacheHits: this.cacheHits,
      cacheMisses: this.cacheMisses,
      blocksResident: this.blocksResident,
      maxBlocksResident: this.maxBlocksResident,
      blocksRead: this.blocksRead,
      blockChecksums: this.blockChecksums,
      blockChecksumsSkipped: this.blockChecksumsSkipped,
      fenceWindows: this.fenceWindows,
      fenceWindowBytes: this.fenceWindowBytes,
      fenceBlocksAdopted: this.fenceBlocksAdopted,
      fenceFallbacks: this.fenceFallbacks,
      fenceMismatches: this.fenceMismatches,
      wholeTables: this.wholeTables,
    };
  }
}
