/** Reading versioned records at a snapshot from current + history (DuckLake's visibility rule). */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, type ValueKind } from "../codec.ts";
import { type Kind, keys } from "../keys.ts";
import type { Versioned } from "../records.ts";

/**
 * DuckLake's visibility rule, the one home of it (decision 0462): a version is visible at snapshot `s`
 * when it began at or before `s` and has not ended by `s` (`begin ≤ s < end`, a NULL end never ends).
 */
export function visibleAt(rec: Versioned, s: number): boolean {
  return visibleIn(rec, s, s);
}

/**
 * The same rule with its two snapshot literals as DuckLake's SQL spells it, `B >= begin_snapshot AND
 * (E < end_snapshot OR end_snapshot IS NULL)`: every template DuckLake sends has `B = E` (then it is
 * `visibleAt`), but a statement read from the wire is answered from its own literals, exactly.
 */
export function visibleIn(rec: Versioned, begunBy: number, endsAfter: number): boolean {
  return rec.begin_snapshot <= begunBy && (rec.end_snapshot === null || endsAfter < rec.end_snapshot);
}

export async function scanAll<T>(
  view: ReadView,
  prefix: Uint8Array,
  vk: ValueKind,
  what: string,
): Promise<T[]> {
  const out: T[] = [];
  for await (const kv of view.scan({ prefix })) out.push(decodeValue<T>(vk, kv.value, what));
  return out;
}

/** Every version (live and ended) of a kind, optionally narrowed by leading ids (e.g. the table id). */
export async function allVersions<T extends Versioned>(
  view: ReadView,
  kind: Kind,
  vk: ValueKind,
  ...ids: number[]
): Promise<T[]> {
  // Two independent range scans: run together, so a cold read waits for one round trip chain, not two.
  const [live, ended] = await Promise.all([
    scanAll<T>(view, keys.current(kind, ...ids), vk, "current record"),
    scanAll<T>(view, keys.historyPrefix(kind, ...ids), vk, "history record"),
  ]);
  return [...live, ...ended];
}

export async function versionsAt<T extends Versioned>(
  view: ReadView,
  s: number,
  kind: Kind,
  vk: ValueKind,
  ...ids: number[]
): Promise<T[]> {
  return (await allVersions<T>(view, kind, vk, ...ids)).filter((r) => visibleAt(r, s));
}

/** The rows a DuckLake table held when `s` was the head: begun by `s`, ends after `s` shown as NULL. */
export function asOf<T extends Versioned>(rows: T[], s: number): T[] {
  return rows
    .filter((r) => r.begin_snapshot <= s)
    .map((r) => (r.end_snapshot !== null && r.end_snapshot > s ? { ...r, end_snapshot: null } : r));
}
