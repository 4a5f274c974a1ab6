import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261123234123 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`drop index if exists "IDX_payin_transaction_status_created_at";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_order_id";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_cart_id";`);

    this.addSql(`alter table if exists "payin_transaction" add column if not exists "flag_kinds" text[] null;`);
    // flag_kinds = the keys of flags (sorted; null when none), for the rows recorded before
    this.addSql(`update "payin_transaction" set "flag_kinds" = (select array_agg(k order by k) from jsonb_object_keys("flags") as k) where jsonb_typeof("flags") = 'object' and "flags" <> '{}'::jsonb;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_created_at_id" ON "payin_transaction" ("created_at", "id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_status_created_at_id" ON "payin_transaction" ("status", "created_at", "id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_provider_id_created_at_id" ON "payin_transaction" ("provider_id", "created_at", "id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_flag_kinds" ON "payin_transaction" USING GIN ("flag_kinds") WHERE flag_kinds IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_paid_at_id" ON "payin_transaction" ("paid_at", "id") WHERE paid_at IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_open_id" ON "payin_transaction" ("id") WHERE status IN ('creating', 'active', 'dispute', 'checking', 're_calculation') AND deleted_at IS NULL;`);

    // Indexes the model cannot declare (README "Indexes"):
    // - flagged pay-ins newest first, alone and per status, carrying flag_kinds so that a flag
    //   filter and its count are answered from the index (has_flags, flag + status);
    for (const [name, columns] of [["flagged_created_at_id", `"created_at", "id"`], ["flagged_status_created_at_id", `"status", "created_at", "id"`]]) {
      this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_${name}" ON "payin_transaction" (${columns}) INCLUDE ("flag_kinds") WHERE flag_kinds IS NOT NULL AND deleted_at IS NULL;`);
    }
    // - prefix search (LIKE 'abc%') in any database collation: text_pattern_ops on the ids (they
    //   also answer equality, so they replace the plain order_id and cart_id indexes) …
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_id_pattern" ON "payin_transaction" ("id" text_pattern_ops) WHERE deleted_at IS NULL;`);
    for (const column of ["service_id", "session_id", "order_id", "cart_id"]) {
      this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_${column}_pattern" ON "payin_transaction" ("${column}" text_pattern_ops) WHERE ${column} IS NOT NULL AND deleted_at IS NULL;`);
    }
    // … and on the requisite numbers, not partial so that ANALYZE keeps statistics of the
    // expressions (without them the planner misjudges a search and reads the table)
    for (const [name, key] of [["requisites", "requisites"], ["sbp_number", "sbpNumber"]]) {
      this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_${name}_pattern" ON "payin_transaction" ((requisite ->> '${key}') text_pattern_ops);`);
    }
  }

  override async down(): Promise<void> {
    for (const name of ["flagged_created_at_id", "flagged_status_created_at_id", "id_pattern", "service_id_pattern", "session_id_pattern", "order_id_pattern", "cart_id_pattern", "requisites_pattern", "sbp_number_pattern"]) {
      this.addSql(`drop index if exists "IDX_payin_transaction_${name}";`);
    }
    this.addSql(`drop index if exists "IDX_payin_transaction_created_at_id";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_status_created_at_id";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_provider_id_created_at_id";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_flag_kinds";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_paid_at_id";`);
    this.addSql(`drop index if exists "IDX_payin_transaction_open_id";`);
    this.addSql(`alter table if exists "payin_transaction" drop column if exists "flag_kinds";`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_status_created_at" ON "payin_transaction" ("status", "created_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_order_id" ON "payin_transaction" ("order_id") WHERE order_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_payin_transaction_cart_id" ON "payin_transaction" ("cart_id") WHERE cart_id IS NOT NULL AND deleted_at IS NULL;`);
  }

}
