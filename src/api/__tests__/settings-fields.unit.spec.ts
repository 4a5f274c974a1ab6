// The settings fields src/api/README.md lists for POST /admin/payin/settings and
// POST /admin/payin/settings/:id are the ones the routes accept, with the schemas' types and ranges.
import { readFileSync } from "fs"
import path from "path"
import { pluginOptionsSchema, providerOptionsSchema } from "../../modules/payin/settings/options"
import { pluginSettingsPatchSchema, providerSettingsPatchSchema } from "../../modules/payin/settings/overrides"

type Schema = { _zod: { def: { type: string; innerType?: Schema; in?: Schema; shape?: Record<string, Schema> } } }
type NumberSchema = Schema & { minValue: number | null; maxValue: number | null; isInt: boolean }
type Row = { field: string; type: string; range: string }

const readme = readFileSync(path.join(__dirname, "..", "README.md"), "utf8").split("\n")

/** The rows of the first table under `heading`: field (without its backticks), type, range. */
function documented(heading: string): Row[] {
  const start = readme.findIndex((line) => line.trim() === heading)
  expect([heading, start >= 0]).toEqual([heading, true])
  let i = start + 1
  while (i < readme.length && !readme[i].startsWith("|") && !readme[i].startsWith("#")) i++
  const rows: Row[] = []
  for (i += 2; i < readme.length && readme[i].startsWith("|"); i++) {
    const [field, type, range] = readme[i].split("|").slice(1, -1).map((cell) => cell.trim())
    rows.push({ field: field.replace(/^`|`$/g, ""), type, range })
  }
  return rows
}

/** The schema under defaults, optionals and pipes (a pipe is checked by what it takes in). */
function bare(schema: Schema): Schema {
  let s = schema
  for (;;) {
    const { type, innerType, in: input } = s._zod.def
    if (["default", "optional", "nullable", "prefault"].includes(type) && innerType) s = innerType
    else if (type === "pipe" && input) s = input
    else return s
  }
}

function typeOf(schema: Schema): string {
  const s = bare(schema)
  const type = s._zod.def.type
  if (type === "number") return (s as NumberSchema).isInt ? "whole number" : "number"
  return { boolean: "boolean", string: "text", enum: "text", array: "list" }[type] ?? type
}

function rangeOf(schema: Schema): string {
  const s = bare(schema)
  if (s._zod.def.type !== "number") return "—"
  const { minValue, maxValue } = s as NumberSchema
  return maxValue === null || maxValue >= Number.MAX_SAFE_INTEGER ? `${minValue} or more` : `${minValue}–${maxValue}`
}

/** Every field a patch schema accepts, a group's (an object option) as `group.field`, with the option schema that checks it. */
function accepted(patch: { shape: Record<string, unknown> }, options: { shape: Record<string, unknown> }): Row[] {
  return Object.keys(patch.shape).flatMap((key) => {
    const schema = (options.shape[key] ?? patch.shape[key]) as Schema
    const group = bare(schema)._zod.def.shape
    const fields: [string, Schema][] = group ? Object.entries(group).map(([f, s]) => [`${key}.${f}`, s]) : [[key, schema]]
    return fields.map(([field, s]) => ({ field, type: typeOf(s), range: rangeOf(s) }))
  })
}

const byField = (rows: Row[]) => [...rows].sort((a, b) => a.field.localeCompare(b.field))

describe("src/api/README.md: the settings fields", () => {
  it("POST /admin/payin/settings: every field it accepts, each with the schema's type and range", () => {
    const listed = documented("#### Plugin-wide: `POST /admin/payin/settings`")
    expect(byField(listed)).toEqual(byField(accepted(pluginSettingsPatchSchema, pluginOptionsSchema)))
  })

  it("POST /admin/payin/settings/:id: every field it accepts, each with the schema's type and range", () => {
    const listed = documented("#### Per instance: `POST /admin/payin/settings/:id`")
    expect(byField(listed)).toEqual(byField(accepted(providerSettingsPatchSchema, providerOptionsSchema)))
  })

  it("reconcileAfterSeconds takes 0 (look a pay-in up as soon as it exists)", () => {
    expect(pluginOptionsSchema.shape.reconcileAfterSeconds.safeParse(0).success).toBe(true)
    expect(documented("#### Plugin-wide: `POST /admin/payin/settings`").find((r) => r.field === "reconcileAfterSeconds")?.range).toBe("0–86400")
  })
})
