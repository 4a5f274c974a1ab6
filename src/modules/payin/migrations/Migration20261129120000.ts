import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// Webhooks are booked on the worker (issue 40): the process applying an inbox entry leases it
// (`claimed_until`), so two workers never book one at once and a crashed one's entries are taken
// over when the lease passes; the received ones are found oldest first by a partial index.
export class Migration20261129120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_webhook_event" add column if not exists "claimed_until" timestamptz null;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_webhook_event_created_at" ON "payin_webhook_event" ("created_at") WHERE state = 'received' AND deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "IDX_payin_webhook_event_created_at";`);
    this.addSql(`alter table if exists "payin_webhook_event" drop column if exists "claimed_until";`);
  }
}
