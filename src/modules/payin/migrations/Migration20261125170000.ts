import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// Retries of Medusa effects with backoff, and their fencing (README "Reliability"):
// - next_effect_at: when a failed capture / order cancel is due again (nullable, no default: a
//   metadata-only change, nothing rewritten on a populated ledger);
// - effect_fence: the token a run claims before it touches Medusa (a constant default: also
//   metadata-only on PostgreSQL 11+);
// - the due-effects selection reads a small partial index (only rows with an effect pending),
//   replacing the one by attempts. Migrations run in a transaction, so it cannot be built
//   CONCURRENTLY: building it reads the table once and blocks writes to it for that read; on a
//   very large ledger run it off-peak, or create the index CONCURRENTLY by hand beforehand (the
//   IF NOT EXISTS below then skips it).
export class Migration20261125170000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" add column if not exists "next_effect_at" timestamptz null, add column if not exists "effect_fence" integer not null default 0;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_effect_due" ON "payin_transaction" ("id", "next_effect_at") WHERE effect_pending IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`drop index if exists "IDX_payin_transaction_effect_attempts_id";`);
  }

  override async down(): Promise<void> {
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_effect_attempts_id" ON "payin_transaction" ("effect_attempts", "id") WHERE effect_pending IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`drop index if exists "IDX_payin_transaction_effect_due";`);
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "next_effect_at", drop column if exists "effect_fence";`);
  }

}
