import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// What the service credited at a pay-in's last `closed` (issue 41, soak seed 1): a capture that runs
// after a dispute recalculated the pay-in books that, not the recalculated amount. Paid pay-ins
// take their current fiat amount, the best record of it this migration has.
export class Migration20261129130000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" add column if not exists "credited_amount" text null;`);
    this.addSql(`update "payin_transaction" set "credited_amount" = "fiat_amount" where "paid_at" is not null and "credited_amount" is null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "credited_amount";`);
  }
}
