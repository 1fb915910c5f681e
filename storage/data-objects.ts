/**
 * Reading one of a lake's data objects whole (`lakes/<lake>/data/<path>`) for a caller that knows its
 * registered size: an object whose size differs is refused, so a bound the caller checked against the
 * registered size holds for the bytes read. Knows nothing of what the bytes mean.
 */
import type { Bucket } from "./api.ts";
import { Corruption } from "./errors.ts";
import { dataObjectKey } from "./keys.ts";

export interface DataObjectReader {
  read(path: string, sizeBytes: number): Promise<Uint8Array>;
}

export function dataObjectReader(bucket: Bucket, lake: string): DataObjectReader {
  return {
    async read(path: string, sizeBytes: number): Promise<Uint8Array> {
      const object = await bucket.get(dataObjectKey(lake, path));
      if (!object) throw new Corruption(`data file ${path} is registered but absent from the lake`);
      if (object.size !== sizeBytes) {
        throw new Corruption(`data file ${path} is ${object.size} bytes, registered as ${sizeBytes}`);
      }
      return new Uint8Array(await object.arrayBuffer());
    },
  };
}
