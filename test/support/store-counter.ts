/**
 * Counts what a caller reads from (and writes to) the store: point gets, scans, the bytes they returned,
 * and the bytes transactions put. A thin proxy over the real store, never a fake; free of Cloudflare
 * imports so the Node benchmarks use it too.
 */
import type { Bytes, KeyValue, ReadView, ScanRange, Store } from "../../storage/api.ts";

export class StoreCounter {
  gets = 0;
  scans = 0;
  bytes = 0;
  written = 0;

  reset(): void {
    this.gets = 0;
    this.scans = 0;
    this.bytes = 0;
    this.written = 0;
  }

  get reads(): number {
    return this.gets + this.scans;
  }

  wrapView<V extends ReadView>(view: V): V {
    const self = this;
    return new Proxy(view, {
      get(target, prop, receiver) {
        if (prop === "get") {
          return async (key: Bytes) => {
            self.gets++;
            const v = await target.get(key);
            self.bytes += key.length + (v?.length ?? 0);
            return v;
          };
        }
        if (prop === "put") {
          return (key: Bytes, value: Bytes) => {
            self.written += key.length + value.length;
            (target as unknown as { put(k: Bytes, v: Bytes): void }).put(key, value);
          };
        }
        if (prop === "scan") {
          return (range: ScanRange): AsyncIterable<KeyValue> => {
            self.scans++;
            const inner = target.scan(range);
            return {
              async *[Symbol.asyncIterator]() {
                for await (const kv of inner) {
                  self.bytes += kv.key.length + kv.value.length;
                  yield kv;
                }
              },
            };
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  wrapStore(store: Store): Store {
    const self = this;
    return new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === "begin") return () => self.wrapView(target.begin());
        if (prop === "snapshot") return () => self.wrapView(target.snapshot());
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}
