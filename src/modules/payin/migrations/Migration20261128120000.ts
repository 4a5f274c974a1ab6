import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// Pay again's late payment as a ledger intent: the money path asks that a paid pay-in be attached
// to the next payment session of its collection; the provider takes it from here, never from a
// session's data. A nullable column without a default: no table rewrite.
export class Migration20261128120000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" add column if not exists "reattach_requested_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "reattach_requested_at";`);
  }

}
