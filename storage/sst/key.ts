/**
 * Object keys of sorted tables: `lakes/<lake>/sst/<epoch>-<id>.sst`, epoch and id zero-padded to 20
 * decimal digits (the width of every numeric name in the layout) so that names sort by (epoch, id) in
 * R2's ascending listing. Golden vectors in test/storage/sst pin the format.
 */
import { SstInvalidInput } from "./errors.ts";

const WIDTH = 20;
const PATTERN = /^lakes\/([^/]+)\/sst\/(\d{20})-(\d{20})\.sst$/;

function pad(n: number, what: string): string {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new SstInvalidInput(`sorted table ${what} must be a non-negative safe integer, got ${n}`);
  }
  return String(n).padStart(WIDTH, "0");
}

/** Prefix under which all of a lake's tables live (for listing). */
export function sstPrefix(lake: string): string {
  if (lake.length === 0 || lake.includes("/")) {
    throw new SstInvalidInput(`lake name must be non-empty and contain no "/", got ${JSON.stringify(lake)}`);
  }
  return `lakes/${lake}/sst/`;
}

export function sstKey(lake: string, epoch: number, id: number): string {
  return `${sstPrefix(lake)}${pad(epoch, "epoch")}-${pad(id, "id")}.sst`;
}

/** Parses a table key; undefined if `key` is not one. */
export function parseSstKey(key: string): { lake: string; epoch: number; id: number } | undefined {
  const m = PATTERN.exec(key);
  if (!m) return undefined;
  const epoch = Number(m[2]);
  const id = Number(m[3]);
  if (!Number.isSafeInteger(epoch) || !Number.isSafeInteger(id)) return undefined;
  return { lake: m[1]!, epoch, id };
}
