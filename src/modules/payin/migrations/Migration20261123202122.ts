import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261123202122 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "payin_job_run" drop constraint if exists "payin_job_run_name_unique";`);
    this.addSql(`create table if not exists "payin_job_run" ("id" text not null, "name" text not null, "last_run_at" timestamptz not null, "last_report" jsonb null, "runs" integer not null default 0, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "payin_job_run_pkey" primary key ("id"));`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_payin_job_run_name_unique" ON "payin_job_run" ("name") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_job_run_deleted_at" ON "payin_job_run" ("deleted_at") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "payin_job_run" cascade;`);
  }

}
