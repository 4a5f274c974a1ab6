import { Migration } from "@medusajs/framework/mikro-orm/migrations";

// A lean status history (issue 25): a serial id instead of a 34-character text one (the primary
// key's index shrinks to a third), and without the (transaction_id, created_at) index that
// duplicated the transaction_id one (a pay-in has a handful of history rows, sorted in memory).
// New rows keep what explains a change, not the service's whole answer; rows written before keep
// theirs (history retention prunes them with their pay-ins; VACUUM FULL returns the space).
// Adding the serial column rewrites the table once (npm run bench:migrations times it).
export class Migration20261127060000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`drop index if exists "IDX_payin_status_change_transaction_id_created_at";`);
    this.addSql(`alter table "payin_status_change" drop constraint if exists "payin_status_change_pkey";`);
    this.addSql(`alter table "payin_status_change" drop column "id";`);
    this.addSql(`alter table "payin_status_change" add column "id" serial not null;`);
    this.addSql(`alter table "payin_status_change" add constraint "payin_status_change_pkey" primary key ("id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "payin_status_change" drop constraint if exists "payin_status_change_pkey";`);
    this.addSql(`alter table "payin_status_change" alter column "id" drop default;`);
    this.addSql(`drop sequence if exists "payin_status_change_id_seq";`);
    this.addSql(`alter table "payin_status_change" alter column "id" type text using 'payinsc_' || lpad("id"::text, 26, '0');`);
    this.addSql(`alter table "payin_status_change" add constraint "payin_status_change_pkey" primary key ("id");`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_status_change_transaction_id_created_at" ON "payin_status_change" ("transaction_id", "created_at") WHERE deleted_at IS NULL;`);
  }

}
