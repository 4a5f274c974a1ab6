/**
 * The module's database access: the knex connection Medusa gives every module
 * (`__pg_connection__`). The ledger, the webhook inbox and the settings store write with plain
 * SQL in explicit transactions, so each status change, its history row and its pending effect
 * are one commit.
 */
export type Db = {
  raw(sql: string, bindings?: unknown[]): Promise<{ rows: any[]; rowCount?: number }>
  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T>
}
