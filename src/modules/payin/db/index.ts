export type Db = {
  raw(sql: string, bindings?: unknown[]): Promise<{ rows: any[]; rowCount?: number }>
  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T>
}
