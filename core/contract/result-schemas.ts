// Arrow types of the contract's column kinds, and the Arrow fields and schemas
// of the declared result tables (core/contract/tables.ts): the one mapping
// from a declaration to Arrow, used by the engine to build its results and by
// participant families for their columns. Browser-safe (apache-arrow only).
import { Bool, Field, FixedSizeBinary, Float64, Int32, Schema, TimeUnit, Timestamp, Uint32, Uint64, Utf8, type DataType } from 'apache-arrow';
import { RESULT_SCHEMA_KEY } from './results';
import { RESULT_TABLES, type ArrowSchemaName, type ResultColumnKind } from './tables';

/** The Arrow type of a column kind. */
export function arrowTypeOfKind(kind: ResultColumnKind): DataType {
  switch (kind) {
    case 'uuid':
      return new FixedSizeBinary(16);
    case 'digest':
      return new FixedSizeBinary(32);
    case 'utf8':
      return new Utf8();
    case 'bool':
      return new Bool();
    case 'int32':
      return new Int32();
    case 'uint32':
      return new Uint32();
    case 'uint64':
      return new Uint64();
    case 'float64':
      return new Float64();
    case 'timestamp_us':
      return new Timestamp(TimeUnit.MICROSECOND, 'UTC');
  }
}

/** The Arrow fields of a declared result table, in schema order. */
export function resultFields(name: ArrowSchemaName): Field[] {
  return RESULT_TABLES[name].map((c) => new Field(c.name, arrowTypeOfKind(c.kind), c.nullable));
}

/** The Arrow schema of a declared result table; `named` adds the result-schema metadata (`RESULT_SCHEMA_KEY`). */
export function resultSchema(name: ArrowSchemaName, named: boolean): Schema {
  return new Schema(resultFields(name), named ? new Map([[RESULT_SCHEMA_KEY, name]]) : undefined);
}
