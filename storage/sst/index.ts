/** The sorted-table module's public surface (see README.md); the store core imports from here. */
export {
  type BuiltSst,
  buildSst,
  DEFAULT_BLOCK_BYTES,
  SstBuilder,
  type SstBuildOptions,
  type SstSummary,
} from "./builder.ts";
export { ReadCounters } from "./counters.ts";
export { SstExists, SstInvalidInput, SstNotFound } from "./errors.ts";
export { FORMAT_VERSION } from "./footer.ts";
export { parseSstKey, sstKey, sstPrefix } from "./key.ts";
export { DEFAULT_TAIL_BYTES, type SstOpenOptions, SstReader } from "./reader.ts";
export { type SstInfo, type SstTarget, writeSst } from "./writer.ts";
