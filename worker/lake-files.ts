/**
 * The rows API's file source: a lake's data files fetched from R2 for `readRows` (the catalog names the
 * file and its registered size; this fetches it, refusing an object whose size disagrees, so a bound the
 * catalog checked against the registered size holds for the bytes read).
 */
import type { RowFileSource } from "../catalog/index.ts";
import type { Bucket } from "../storage/api.ts";
import { Corruption } from "../storage/errors.ts";
import { dataObjectKey } from "../storage/keys.ts";

export function lakeFileSource(bucket: Bucket, lake: string): RowFileSource {
  return {
    async read(path: string, sizeBytes: number): Promise<Uint8Array> {
      const key = dataObjectKey(lake, path);
      const object = await bucket.get(key);
      if (!object) throw new Corruption(`data file ${path} is registered but absent from the lake`);
      if (object.size !== sizeBytes) {
        throw new Corruption(`data file ${path} is ${object.size} bytes, registered as ${sizeBytes}`);
      }
      return new Uint8Array(await object.arrayBuffer());
    },
  };
}
