/**
 * The properties section: what a manifest or a reader wants to know about a table without reading its
 * blocks beyond counts the footer already carries — the key range and the build parameters.
 *
 *   varint minKeyLength, minKey, varint maxKeyLength, maxKey, varint blockTargetBytes, varint bloomBitsPerKey
 */
import type { Bytes } from "../api.ts";
import { ByteReader, ByteWriter } from "./byte-io.ts";

export interface Props {
  minKey: Bytes;
  maxKey: Bytes;
  blockTargetBytes: number;
  bloomBitsPerKey: number;
}

export function encodeProps(p: Props): Uint8Array {
  const w = new ByteWriter(32 + p.minKey.length + p.maxKey.length);
  w.varint(p.minKey.length);
  w.bytes(p.minKey);
  w.varint(p.maxKey.length);
  w.bytes(p.maxKey);
  w.varint(p.blockTargetBytes);
  w.varint(p.bloomBitsPerKey);
  return w.finish().slice();
}

export function decodeProps(bytes: Uint8Array, what: string): Props {
  const r = new ByteReader(bytes, `${what} properties`);
  const minKey = r.bytes(r.varint()).slice();
  const maxKey = r.bytes(r.varint()).slice();
  const blockTargetBytes = r.varint();
  const bloomBitsPerKey = r.varint();
  if (!r.done) r.fail("bytes after the last property");
  return { minKey, maxKey, blockTargetBytes, bloomBitsPerKey };
}
