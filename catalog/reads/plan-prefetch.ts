/**
 * The key ranges a scan plan reads, named up front so a cold reader fetches their blocks together
 * (`ReadView.prefetch`, docs/decisions/0170-plan-prefetch.md) instead of one round trip per dependent
 * lookup (head → snapshot → schema name → schema → table name → table → files).
 *
 * Two sets, because the second needs the table id the first resolves:
 * - `lookupRanges`: everything that resolves a reference at a snapshot — the head, the snapshot (the
 *   newest record of the snapshot subspace when none is named), the global options, the name index
 *   entries, and the schema and table records (current and history: a name that moved falls back to
 *   scanning them).
 * - `tableRanges`: one table's files, delete files, inlined deletes and rows, and columns.
 */
import type { PrefetchRange } from "../../storage/api.ts";
import { foldName, hash53, Kind, keys, NameSpace, OptionScope } from "../keys.ts";
import type { RelationRef } from "../verbs/schema.ts";

const versions = (kind: Kind, ...ids: number[]): PrefetchRange[] => [
  { prefix: keys.current(kind, ...ids) },
  { prefix: keys.historyPrefix(kind, ...ids) },
];

export function lookupRanges(ref: number | RelationRef, snapshotId: number | undefined): PrefetchRange[] {
  const out: PrefetchRange[] = [
    { prefix: keys.head() },
    snapshotId === undefined
      ? { prefix: keys.snapshotPrefix(), last: true }
      : { prefix: keys.snapshot(snapshotId) },
    { prefix: keys.current(Kind.option, OptionScope.global, 0) },
    // The table's schema is looked up by id once the table is known: any schema, so the whole kind
    // (one record per schema version: short).
    ...versions(Kind.schema),
  ];
  if (typeof ref === "number" || "id" in ref) {
    out.push(...versions(Kind.table, typeof ref === "number" ? ref : ref.id));
  } else {
    const schemaName = foldName(ref.schema ?? "main");
    out.push(
      { prefix: keys.name(NameSpace.schema, 0, hash53(schemaName)) },
      // The relation's entry is keyed by its schema's id, not known yet: the relation name index.
      { prefix: keys.namePrefix(NameSpace.relation, 0).subarray(0, 2) },
      ...versions(Kind.table),
    );
  }
  return out;
}

/** What `tableFilesAt` reads of table `t`: with a page, its data files from `afterFileId` on. */
export function tableRanges(t: number, afterFileId: number | undefined, firstPage: boolean): PrefetchRange[] {
  const from = afterFileId === undefined ? [] : [afterFileId + 1];
  return [
    { prefix: keys.current(Kind.dataFile, t), start: keys.current(Kind.dataFile, t, ...from) },
    { prefix: keys.historyPrefix(Kind.dataFile, t), start: keys.historyPrefix(Kind.dataFile, t, ...from) },
    ...versions(Kind.deleteFile, t),
    ...versions(Kind.column, t),
    { prefix: keys.inlineFileDeletePrefix(t) },
    // The inlined rows start at the row-id floor their table's meta holds (decision 0182): the meta comes
    // in the same round; the rows' range is named whole, as the floor is not known yet.
    ...(firstPage ? [{ prefix: keys.current(Kind.tableMeta, t) }, { prefix: keys.inlineRowPrefix(t) }] : []),
  ];
}

/**
 * What a woken lake writer's first commit looks up before it can apply anything: the head and newest
 * snapshot, the name index, and the small per-entity records a verb resolves and checks (schemas,
 * tables, columns, stats, inlined-data tables, schema versions, options, table meta). Handed to the
 * store's open (`WriterOptions.prefetch`), whose budget bounds it (docs/decisions/0171-wake-prefetch.md).
 */
export function commitLookupRanges(): PrefetchRange[] {
  return [
    { prefix: keys.head() },
    { prefix: keys.snapshotPrefix(), last: true },
    { prefix: keys.namePrefix(NameSpace.schema, 0).subarray(0, 1) },
    ...[
      Kind.schema,
      Kind.table,
      Kind.column,
      Kind.tableStats,
      Kind.tableColumnStats,
      Kind.option,
      Kind.inlinedTable,
      Kind.schemaVersion,
      Kind.tableMeta,
    ].map((k) => ({ prefix: keys.current(k) })),
  ];
}
