/**
 * Named checkpoints on R2: the id format, object keys, and the descriptor and tombstone codecs.
 *
 * Id: `<writer epoch>-<32 hex>` — the epoch of the writer that minted it (so two writers' ids can never
 * collide, and an operator can see who minted it) and 128 random bits (so an id is unguessable and can
 * serve as a public read selector).
 *
 * Descriptor `lakes/<lake>/checkpoints/<id>.json`: written once (put-if-absent) after the manifest version
 * that records it has landed; UTF-8 JSON `{"crc32c":"<8 hex>","checkpoint":{…}}` with the checksum over the
 * exact bytes of the inner value, like a manifest. Tombstone `lakes/<lake>/checkpoints/<id>.deleted`: written
 * once by a delete, before the manifest edit, and never collected (see README "Readers and checkpoints").
 */
import { z } from "zod";
import { fromUtf8, toHex, utf8 } from "./bytes.ts";
import { Corruption } from "./errors.ts";
import { lakePrefix } from "./keys.ts";
import { InvalidCheckpointId } from "./reader/errors.ts";
import { crc32c } from "./sst/crc32c.ts";

export const CHECKPOINT_FORMAT_VERSION = 1;

const ID = /^([1-9][0-9]{0,15})-([0-9a-f]{32})$/;

/** A fresh id for a checkpoint minted under `epoch`. */
export function newCheckpointId(epoch: number): string {
  const r = new Uint8Array(16);
  crypto.getRandomValues(r);
  return `${epoch}-${toHex(r)}`;
}

/** The minting epoch of a well-formed id; InvalidCheckpointId otherwise (before any bucket call). */
export function checkCheckpointId(id: string): number {
  const m = typeof id === "string" ? ID.exec(id) : null;
  const epoch = m ? Number(m[1]) : Number.NaN;
  if (!Number.isSafeInteger(epoch) || epoch < 1) {
    const shown = typeof id === "string" ? JSON.stringify(id.slice(0, 80)) : typeof id;
    throw new InvalidCheckpointId(
      `${shown} is not a checkpoint id; ids look like "<epoch>-<32 hex digits>" as returned when the checkpoint was minted`,
    );
  }
  return epoch;
}

export const checkpointPrefix = (lake: string): string => `${lakePrefix(lake)}checkpoints/`;
export const checkpointKey = (lake: string, id: string): string => `${checkpointPrefix(lake)}${id}.json`;
export const checkpointTombstoneKey = (lake: string, id: string): string =>
  `${checkpointPrefix(lake)}${id}.deleted`;

const safeInt = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const descriptorSchema = z.object({
  formatVersion: z.literal(CHECKPOINT_FORMAT_VERSION),
  id: z.string(),
  lake: z.string(),
  epoch: safeInt.min(1),
  /** The manifest version that records this checkpoint; the cut's sorted layers are the ones it lists. */
  manifestVersion: safeInt.min(1),
  /** WAL segments replayed over that manifest: walFrom..walTo inclusive (empty when walTo < walFrom). */
  walFrom: safeInt.min(1),
  walTo: safeInt,
  /** The cut's position: every batch <= it, nothing later. */
  position: safeInt,
  createdAt: safeInt,
  /** Wall-clock ms after which the checkpoint is refused; null = until deleted. */
  expiresAt: safeInt.nullable(),
});

export type CheckpointDescriptor = z.infer<typeof descriptorSchema>;

const PREFIX = '{"crc32c":"';
const MIDDLE = '","checkpoint":';

export function encodeDescriptor(d: CheckpointDescriptor): Uint8Array {
  const body = JSON.stringify(d);
  const crc = crc32c(utf8(body)).toString(16).padStart(8, "0");
  return utf8(`${PREFIX}${crc}${MIDDLE}${body}}`);
}

export function decodeDescriptor(bytes: Uint8Array, where: string): CheckpointDescriptor {
  const bad = (what: string): Corruption =>
    new Corruption(`checkpoint descriptor ${where} is corrupt: ${what}; mint a new checkpoint`);
  const headLen = PREFIX.length + 8 + MIDDLE.length;
  if (bytes.length < headLen + 2) throw bad("too short");
  let text: string;
  try {
    text = fromUtf8(bytes);
  } catch {
    throw bad("not UTF-8");
  }
  if (!text.startsWith(PREFIX) || text.slice(PREFIX.length + 8, headLen) !== MIDDLE || !text.endsWith("}"))
    throw bad("wrong framing");
  const crcHex = text.slice(PREFIX.length, PREFIX.length + 8);
  // The framing is ASCII, so character offsets equal byte offsets.
  const body = bytes.subarray(headLen, bytes.length - 1);
  if (!/^[0-9a-f]{8}$/.test(crcHex) || crc32c(body) !== Number.parseInt(crcHex, 16))
    throw bad("checksum mismatch");
  let json: unknown;
  try {
    json = JSON.parse(fromUtf8(body));
  } catch {
    throw bad("body is not JSON");
  }
  const parsed = descriptorSchema.safeParse(json);
  if (!parsed.success) throw bad(`invalid fields: ${parsed.error.issues[0]?.path.join(".") ?? "?"}`);
  return parsed.data;
}

/** Deterministic bytes, so a repeated delete's put-if-absent reads back as its own. */
export function encodeTombstone(lake: string, id: string): Uint8Array {
  return utf8(JSON.stringify({ formatVersion: CHECKPOINT_FORMAT_VERSION, lake, id, deleted: true }));
}
