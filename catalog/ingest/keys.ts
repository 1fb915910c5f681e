/**
 * The row-ingestion subspace of the lake's own store (`0x08`): the log head, one record per sequence
 * number, per-table ingest state, the key index and the lake's ingest settings. Fixed-width big-endian
 * ids, so the log scans in sequence order and one table's key index is one range.
 */
import type { Bytes } from "../../storage/api.ts";
import { key, Subspace } from "../keys.ts";

export const IngestKind = {
  head: 0x01,
  record: 0x02,
  table: 0x03,
  keyIndex: 0x04,
  settings: 0x05,
  deadLetter: 0x06,
} as const;

export const ingestKeys = {
  head: (): Bytes => key([Subspace.ingest, IngestKind.head]),
  record: (seq: number): Bytes => key([Subspace.ingest, IngestKind.record], seq),
  recordPrefix: (): Bytes => key([Subspace.ingest, IngestKind.record]),
  table: (tableId: number): Bytes => key([Subspace.ingest, IngestKind.table], tableId),
  keyBucket: (tableId: number, hash: number): Bytes =>
    key([Subspace.ingest, IngestKind.keyIndex], tableId, hash),
  keyIndexPrefix: (tableId: number): Bytes => key([Subspace.ingest, IngestKind.keyIndex], tableId),
  settings: (): Bytes => key([Subspace.ingest, IngestKind.settings]),
  /** A record the flusher could not apply, moved aside under its sequence number (decision 0314). */
  deadLetter: (seq: number): Bytes => key([Subspace.ingest, IngestKind.deadLetter], seq),
  deadLetterPrefix: (): Bytes => key([Subspace.ingest, IngestKind.deadLetter]),
};
