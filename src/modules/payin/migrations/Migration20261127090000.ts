import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// Pay again (issue 26): the end of an order's grace period, on the pay-ins that ended unpaid
// within it. A nullable column without a default: no table rewrite.
export class Migration20261127090000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" add column if not exists "pay_again_until" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "pay_again_until";`);
  }

}
