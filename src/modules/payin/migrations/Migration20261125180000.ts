import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// A service transaction id is unique per provider instance, not across the store: two merchant
// accounts of two services may issue the same id. The new unique index starts with service_id, so
// the apply path's lookup by id keeps its index. Building it reads the table once (measured in the
// ledger benchmark: README "Migrations at scale"); the old index is dropped only after it is built.
export class Migration20261125180000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_transaction_service_id_provider_id_unique" ON "payin_transaction" ("service_id", "provider_id") WHERE service_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`drop index if exists "IDX_payin_transaction_service_id_unique";`);
  }

  override async down(): Promise<void> {
    // back to one row per service id: fails (and changes nothing) if two accounts hold the same id
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_transaction_service_id_unique" ON "payin_transaction" ("service_id") WHERE service_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`drop index if exists "IDX_payin_transaction_service_id_provider_id_unique";`);
  }

}
