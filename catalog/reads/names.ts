/** Resolving live names through the name index: one key per lookup, however many entities exist. */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { foldName, hash53, keys, type NameSpace } from "../keys.ts";
import type { NameEntry } from "../records.ts";

export async function nameEntry(
  view: ReadView,
  ns: NameSpace,
  parent: number,
  name: string,
): Promise<NameEntry | undefined> {
  const raw = await view.get(keys.name(ns, parent, hash53(foldName(name))));
  if (raw === undefined) return undefined;
  return decodeValue<NameEntry[]>(ValueKind.nameEntries, raw, "name").find(
    (e) => foldName(e.name) === foldName(name),
  );
}
