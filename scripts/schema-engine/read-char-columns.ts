// @prisma/adapter-pg 7.10.1 rejects Postgres's internal one-byte "char" type (OID 18), which the
// catalogue uses for constraint kinds, foreign-key actions and the like; the schema engine reads
// those columns as Prisma's Character type. This teaches one adapter-pg connection to report them
// so. It leans on adapter-pg internals (`performIO` returning node-postgres's result): the pinned
// versions and api/src/db/migrations.test.ts keep it honest.
import {
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlQuery,
  type SqlQueryable,
  type Transaction,
} from "@prisma/driver-adapter-utils";

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

interface PgResult {
  fields: { dataTypeID: number }[];
  rows: unknown[][];
}

interface PgQueryableInternals {
  performIO(query: SqlQuery): Promise<PgResult>;
}

/** Column positions of "char" columns, keyed by the row array adapter-pg hands back untouched. */
const charColumnsByRows = new WeakMap<object, number[]>();

export function readCharColumns(adapter: SqlDriverAdapter): SqlDriverAdapter {
  patchQueryable(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) =>
    patchQueryable<Transaction>(await startTransaction(isolationLevel));
  return adapter;
}

function patchQueryable<Q extends SqlQueryable>(queryable: Q): Q {
  const internals = queryable as unknown as Partial<PgQueryableInternals>;
  if (typeof internals.performIO !== "function") {
    throw new Error("@prisma/adapter-pg changed: performIO is gone (see scripts/schema-engine/read-char-columns.ts)");
  }
  const performIO = internals.performIO.bind(queryable);
  internals.performIO = async (query) => {
    const result = await performIO(query);
    const charColumns: number[] = [];
    result.fields.forEach((field, index) => {
      if (field.dataTypeID !== PG_CHAR_OID) return;
      charColumns.push(index);
      field.dataTypeID = PG_TEXT_OID; // accepted by adapter-pg; corrected to Character below
    });
    if (charColumns.length > 0) charColumnsByRows.set(result.rows, charColumns);
    return result;
  };

  const queryRaw = queryable.queryRaw.bind(queryable);
  queryable.queryRaw = async (query) => {
    const resultSet = await queryRaw(query);
    for (const index of charColumnsByRows.get(resultSet.rows) ?? []) {
      resultSet.columnTypes[index] = ColumnTypeEnum.Character;
    }
    return resultSet;
  };
  return queryable;
}
