// The soak's settings, passed by cli.mjs through the environment (jest takes no flags of ours).
import path from "path"
import { z } from "zod"
import { PLANT_NAMES, type PlantName } from "./plants"

export const DEFAULTS = { minutes: 3, shoppers: 14, seed: 1 } as const

const Options = z.object({
  minutes: z.coerce.number().positive().max(24 * 60),
  shoppers: z.coerce.number().int().min(1).max(64),
  seed: z.coerce.number().int().min(0).max(2 ** 32 - 1),
  out: z.string().min(1),
  plant: z.enum(PLANT_NAMES as [PlantName, ...PlantName[]]).optional(),
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\/\S+$/, "a postgres:// URL").optional(),
})

export type SoakOptions = z.infer<typeof Options>

export function soakOptions(env: NodeJS.ProcessEnv = process.env): SoakOptions {
  const parsed = Options.safeParse({
    minutes: env.SOAK_MINUTES ?? DEFAULTS.minutes,
    shoppers: env.SOAK_SHOPPERS ?? DEFAULTS.shoppers,
    seed: env.SOAK_SEED ?? DEFAULTS.seed,
    out: env.SOAK_OUT ?? path.join(__dirname, "..", "..", ".soak"),
    plant: env.SOAK_PLANT || undefined,
    databaseUrl: env.SOAK_DATABASE_URL || undefined,
  })
  if (!parsed.success) {
    throw new Error(`soak settings: ${parsed.error.issues.map((i) => `SOAK_${String(i.path[0]).toUpperCase()} ${i.message}`).join("; ")}`)
  }
  return parsed.data
}
