/**
 * Hostile Quack bodies for the door's tests (issue 24), written with the codec's own writer so each
 * differs from a valid message only where it lies: a data chunk whose row count no bytes back, a LIST
 * whose child claims millions of empty rows, a VARCHAR that is not UTF-8.
 */
import { BinaryWriter } from "../../../worker/quack/binary.ts";
import { writeLogicalType } from "../../../worker/quack/logical-type.ts";
import { concat, encodeHeader, MessageType, type MessageTypeId } from "../../../worker/quack/messages.ts";

const INVALID_INDEX = 0xffff_ffff_ffff_ffffn;

/** One DataChunkWrapper object of `rows` rows and one column of `type`, written by `column`. */
export function oneColumnChunk(
  w: BinaryWriter,
  rows: number,
  column: (w: BinaryWriter) => void,
  type: Parameters<typeof writeLogicalType>[1],
): void {
  w.object(() => {
    w.fieldId(300);
    w.object(() => {
      w.fieldId(100);
      w.uleb(rows);
      w.fieldId(101);
      w.uleb(1);
      w.object(() => writeLogicalType(w, type));
      w.fieldId(102);
      w.uleb(1);
      w.object(() => column(w));
    });
  });
}

/** A FETCH_RESPONSE-shaped body (any header type) of one chunk whose column is written by `column`. */
function oneChunk(
  headerType: MessageTypeId,
  connectionId: string,
  rows: number,
  column: (w: BinaryWriter) => void,
  type: Parameters<typeof writeLogicalType>[1],
): Uint8Array {
  const w = new BinaryWriter();
  w.object(() => {
    w.fieldId(1);
    w.uleb(1);
    w.u8(1);
    oneColumnChunk(w, rows, column, type);
    w.fieldId(2);
    w.uleb(INVALID_INDEX);
  });
  return concat(encodeHeader({ type: headerType, connectionId, clientQueryId: null }), w.bytes());
}

/** Finding 1: one chunk claiming `rows` rows of a STRUCT with no fields and no validity mask. */
export function emptyStructRows(
  rows: number,
  headerType: MessageTypeId = MessageType.FETCH_RESPONSE,
  connectionId = "",
): Uint8Array {
  return oneChunk(
    headerType,
    connectionId,
    rows,
    (w) => {
      w.fieldId(100);
      w.bool(false);
      w.fieldId(103);
      w.uleb(0);
    },
    { id: "STRUCT", fields: [] },
  );
}

/** Finding 1's second form: one LIST row whose child claims `childRows` rows of an empty STRUCT. */
export function listOfEmptyStructs(childRows: number): Uint8Array {
  return oneChunk(
    MessageType.FETCH_RESPONSE,
    "",
    1,
    (w) => {
      w.fieldId(100);
      w.bool(false);
      w.fieldId(104);
      w.uleb(childRows);
      w.fieldId(105);
      w.uleb(1);
      w.object(() => {
        w.fieldId(100);
        w.uleb(0);
        w.fieldId(101);
        w.uleb(childRows);
      });
      w.fieldId(106);
      w.object(() => {
        w.fieldId(100);
        w.bool(false);
        w.fieldId(103);
        w.uleb(0);
      });
    },
    { id: "LIST", child: { id: "STRUCT", fields: [] } },
  );
}

/** Finding 2: one VARCHAR row whose bytes are not UTF-8. */
export function invalidUtf8Varchar(connectionId = ""): Uint8Array {
  return oneChunk(
    MessageType.FETCH_RESPONSE,
    connectionId,
    1,
    (w) => {
      w.fieldId(100);
      w.bool(false);
      w.fieldId(102);
      w.uleb(1);
      w.blob(new Uint8Array([0xff, 0xfe, 0x80]));
    },
    { id: "VARCHAR" },
  );
}
