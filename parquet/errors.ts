/** Typed errors of the Parquet leaf; codes are the project's error taxonomy names (worker/errors.ts). */
import { CodedError } from "../storage/errors.ts";

/** A type or shape this leaf does not write or read (e.g. an INT96 column, a decimal over 38 digits). */
export class ParquetUnsupported extends CodedError {
  readonly code = "Unsupported";
}

/** The input does not fit its declared type, breaks a named limit, or a file is not valid Parquet. */
export class ParquetInvalid extends CodedError {
  readonly code = "InvalidRequest";
}
