/**
 * DuckDB `DataChunk` serialization inside Quack's `DataChunkWrapper` (object field 300): 100 row count,
 * 101 the column types, 102 one vector object per column. A result is split into chunks of at most
 * `CHUNK_ROWS` rows, as DuckDB's executor produces them.
 */
import type { SqlType, SqlValue } from "../../catalog/index.ts";
import type { BinaryReader, BinaryWriter } from "./binary.ts";
import { QuackProtocolError } from "./errors.ts";
import { readLogicalType, writeLogicalType } from "./logical-type.ts";
import { readVector, writeVector } from "./vector.ts";

/** Rows per data chunk: DuckDB's STANDARD_VECTOR_SIZE. */
export const CHUNK_ROWS = 2048;

export interface DataChunk {
  types: SqlType[];
  /** Column-major values: `columns[c][r]`. */
  columns: SqlValue[][];
  rows: number;
}

/** Splits row-major rows into column-major chunks of at most CHUNK_ROWS rows. */
export function toChunks(types: readonly SqlType[], rows: readonly SqlValue[][]): DataChunk[] {
  const chunks: DataChunk[] = [];
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    const slice = rows.slice(start, start + CHUNK_ROWS);
    chunks.push({
      types: [...types],
      columns: types.map((_, c) => slice.map((row) => (row[c] === undefined ? null : (row[c] as SqlValue)))),
      rows: slice.length,
    });
  }
  return chunks;
}

/** Writes one DataChunkWrapper object's fields (the caller wraps them as an object). */
export function writeChunkWrapper(w: BinaryWriter, chunk: DataChunk): void {
  w.fieldId(300);
  w.object(() => {
    w.fieldId(100);
    w.uleb(chunk.rows);
    w.fieldId(101);
    w.list(chunk.types, (t) => w.object(() => writeLogicalType(w, t)));
    w.fieldId(102);
    chunk.types.forEach((_type, c) => {
      const col = chunk.columns[c];
      if (!col || col.length !== chunk.rows) {
        throw new QuackProtocolError(`column ${c} holds ${col?.length ?? 0} values for ${chunk.rows} rows`);
      }
    });
    w.list(chunk.types, (t, c) => w.object(() => writeVector(w, t, chunk.columns[c] as SqlValue[])));
  });
}

export function readChunkWrapper(r: BinaryReader): DataChunk {
  r.requireField(300, "chunk");
  r.requireField(100, "rows");
  const rows = r.uleb();
  // DuckDB never puts more than STANDARD_VECTOR_SIZE rows in one chunk.
  if (rows > CHUNK_ROWS) throw new QuackProtocolError(`a data chunk of ${rows} rows (at most ${CHUNK_ROWS})`);
  r.requireField(101, "types");
  const types = r.list(() => {
    const t = readLogicalType(r);
    r.end();
    return t;
  });
  r.requireField(102, "columns");
  const n = r.count();
  if (n !== types.length) throw new QuackProtocolError(`${n} columns for ${types.length} types`);
  const columns = types.map((t) => {
    const vs = readVector(r, t, rows);
    r.end();
    return vs;
  });
  r.end();
  return { types, columns, rows };
}
