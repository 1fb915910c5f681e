/**
 * A snapshot-isolated transaction: the cut taken at begin plus buffered writes (a private ordered map, so
 * scans merge them with the cut in key order). Commit hands the buffered batch to the store, which checks
 * write-write conflicts and applies it in one synchronous step.
 */
import type {
  Bytes,
  CommitHandle,
  KeyValue,
  Mutation,
  Position,
  PositionStamp,
  ScanRange,
  SortedEntry,
  Transaction,
} from "./api.ts";
import { rangeBounds } from "./bytes.ts";
import { TransactionClosed } from "./errors.ts";
import { asAsync, type MemTree, memEntries, newMemTree } from "./memtable.ts";
import { mergeNewestFirst, visibleEntries } from "./merge.ts";
import { checkKey, checkValue } from "./mutations.ts";
import type { Cut } from "./read-view.ts";

/** What a transaction needs from its store. */
export interface TxnHost {
  /** Conflict check + apply, synchronously; throws TransactionConflict. */
  commitTransaction(begin: Position, mutations: Mutation[], expected?: Position): CommitHandle;
  /** The position the next applied batch gets. */
  nextPosition(): Position;
  /** Handle for a commit with no writes: at `begin`, durable when that position is. */
  handleAt(begin: Position): CommitHandle;
  release(txn: Txn): void;
}

export class Txn implements Transaction {
  private readonly writes: MemTree = newMemTree();
  private done = false;

  constructor(
    private readonly host: TxnHost,
    private readonly cut: Cut,
  ) {}

  get position(): Position {
    return this.cut.position;
  }

  async get(key: Bytes): Promise<Bytes | undefined> {
    const own = this.writes.get(key);
    if (own !== undefined) return own ?? undefined;
    return this.cut.get(key);
  }

  scan(range: ScanRange): AsyncIterable<KeyValue> {
    if (this.writes.size === 0) return this.cut.scan(range);
    // The scan reads a frozen copy of the buffered writes, so later puts do not disturb it.
    const own: AsyncIterable<SortedEntry> = asAsync(memEntries(this.writes.clone(), rangeBounds(range)));
    return visibleEntries(mergeNewestFirst([own, this.cut.entries(range)]), range.limit, this.cut.scanPause);
  }

  put(key: Bytes, value: Bytes): void {
    this.open("put");
    this.writes.set(checkKey(key).slice(), checkValue(value).slice());
  }

  delete(key: Bytes): void {
    this.open("delete");
    this.writes.set(checkKey(key).slice(), null);
  }

  commit(stamp?: PositionStamp): CommitHandle {
    this.open("commit");
    this.done = true;
    try {
      if (this.writes.size === 0) return this.host.handleAt(this.cut.position);
      // No await from here to the apply: the position handed to the stamp is the one the batch gets.
      const expected = stamp ? this.host.nextPosition() : undefined;
      if (stamp && expected !== undefined) {
        for (const m of stamp(expected)) {
          this.writes.set(
            checkKey(m.key).slice(),
            m.value === undefined ? null : checkValue(m.value).slice(),
          );
        }
      }
      const mutations: Mutation[] = [];
      for (const [key, v] of this.writes.entries()) mutations.push({ key, value: v ?? undefined });
      return this.host.commitTransaction(this.cut.position, mutations, expected);
    } finally {
      this.host.release(this);
    }
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    this.host.release(this);
  }

  private open(op: string): void {
    if (this.done) {
      throw new TransactionClosed(
        `${op} on a transaction that already committed or aborted; begin a new one`,
      );
    }
  }
}
