/**
 * Object keys of a lake's store in the bucket. Ids are inverted (99999999999999999999 - n, 20 digits) so
 * that R2's ascending-only list returns the newest object first. The constant is above 2^53, so the
 * arithmetic is BigInt; golden vectors in test/storage/keys.test.ts pin the strings.
 */
import { InvalidArgument } from "./errors.ts";

const INVERT_BASE = 99999999999999999999n;

/** Lake names become key segments, so they are restricted to characters that need no escaping. */
const LAKE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function checkLakeName(lake: string): void {
  if (!LAKE_NAME.test(lake)) {
    throw new InvalidArgument(
      `lake name ${JSON.stringify(lake.slice(0, 140))} is not usable as a storage prefix; use 1-128 characters from [A-Za-z0-9._-], starting with a letter or digit`,
    );
  }
}

export function checkId(n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new InvalidArgument(`id ${n} is not a non-negative safe integer; ids are counters starting at 0`);
  }
}

/** `n` as its inverted 20-digit form. */
export function invert20(n: number): string {
  checkId(n);
  return (INVERT_BASE - BigInt(n)).toString().padStart(20, "0");
}

/** The id an inverted 20-digit string stands for, or undefined when the string is not one. */
export function uninvert20(s: string): number | undefined {
  if (!/^[0-9]{20}$/.test(s)) return undefined;
  const n = INVERT_BASE - BigInt(s);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(n);
}

export const lakePrefix = (lake: string): string => `lakes/${lake}/`;
export const walPrefix = (lake: string): string => `lakes/${lake}/wal/`;
export const manifestPrefix = (lake: string): string => `lakes/${lake}/manifest/`;
/** GC ledgers (gc-ledger.ts). */
export const gcPrefix = (lake: string): string => `lakes/${lake}/gc/`;
/** Where a lake's data files (Parquet written by clients, ingestion and maintenance) live in the bucket. */
export const dataObjectKey = (lake: string, path: string): string => `lakes/${lake}/data/${path}`;

/**
 * A deleted lake's marker: inside the WAL prefix under the all-zero inverted id, so it sorts before every
 * segment and the one-key head listing finds it (see lakes.ts).
 */
export const deletedMarkerKey = (lake: string): string => `${walPrefix(lake)}00000000000000000000.deleted`;

export const walKey = (lake: string, segmentId: number): string =>
  `${walPrefix(lake)}${invert20(segmentId)}.wal`;
export const manifestKey = (lake: string, version: number): string =>
  `${manifestPrefix(lake)}${invert20(version)}.json`;

function parseIdKey(prefix: string, suffix: string, key: string): number | undefined {
  if (!key.startsWith(prefix) || !key.endsWith(suffix)) return undefined;
  const mid = key.slice(prefix.length, key.length - suffix.length);
  return uninvert20(mid);
}

export const parseWalKey = (lake: string, key: string): number | undefined =>
  parseIdKey(walPrefix(lake), ".wal", key);
export const parseManifestKey = (lake: string, key: string): number | undefined =>
  parseIdKey(manifestPrefix(lake), ".json", key);
