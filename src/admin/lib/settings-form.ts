// Fields are named by their path in the options ("paymentPage.successUrl"), the path the admin API uses for their value, source and errors.

export type FieldPath<T> = {
  [K in keyof T & string]-?: NonNullable<T[K]> extends readonly unknown[]
    ? K
    : NonNullable<T[K]> extends object
      ? `${K}.${keyof NonNullable<T[K]> & string}`
      : K
}[keyof T & string]

/** `secret`: write-only, sent only when something is typed; `lines`: one list entry per line; `select`: "" = none. */
export type FieldKind = "text" | "secret" | "number" | "lines" | "switch" | "choices" | "select"

export type DraftValue = string | boolean | string[]
export type Draft = Record<string, DraftValue>

export type FieldSpec<P extends string = string> = {
  path: P
  kind: FieldKind
  /** i18n key under payin.settings of the label; its hint is `<label>Hint` when `hint` is set. */
  label: string
  hint?: boolean
  /** The key of its source badge, reset and error when not its path (a group edited as one). */
  field?: string
  /** What an emptied number field sends (default null: back to medusa-config / env / default). */
  empty?: number | null
  /** The choices of a `choices` or `select` field: a label as is, or an i18n key under payin.settings. */
  options?: readonly { value: string; label?: string; labelKey?: string }[]
  placeholder?: string
  /** A number field's step (the limits are the option schema's, checked by the API). */
  step?: string
  /** Shown only while this holds for the draft. */
  visible?: (draft: Draft) => boolean
}

export const lines = (text: string) => text.split(/\r?\n/).map((s) => s.trim()).filter(Boolean)
const num = (s: string) => (s.trim() === "" ? null : Number(s))

function getAt(values: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, key) => (v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined), values)
}

export function setAt(target: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split(".")
  if (!rest.length) return { ...target, [head]: value }
  const group = (target[head] as Record<string, unknown> | undefined) ?? {}
  return { ...target, [head]: setAt(group, rest.join("."), value) }
}

export function draftOf(values: unknown, specs: readonly FieldSpec[]): Draft {
  const draft: Draft = {}
  for (const spec of specs) {
    const value = getAt(values, spec.path)
    switch (spec.kind) {
      case "secret":
        draft[spec.path] = ""
        break
      case "switch":
        draft[spec.path] = Boolean(value)
        break
      case "lines":
        draft[spec.path] = ((value as string[] | undefined) ?? []).join("\n")
        break
      case "choices":
        draft[spec.path] = [...((value as string[] | undefined) ?? [])]
        break
      default:
        draft[spec.path] = value === undefined || value === null ? "" : String(value)
    }
  }
  return draft
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

function changed(spec: FieldSpec, now: DraftValue, before: DraftValue): boolean {
  switch (spec.kind) {
    case "secret":
      return (now as string).trim() !== ""
    case "lines":
      return !same(lines(now as string), lines(before as string))
    case "choices":
      return !same([...(now as string[])].sort(), [...(before as string[])].sort())
    default:
      return now !== before
  }
}

function stored(spec: FieldSpec, value: DraftValue): unknown {
  switch (spec.kind) {
    case "switch":
    case "choices":
      return value
    case "lines":
      return lines(value as string)
    case "number":
      return num(value as string) ?? spec.empty ?? null
    default:
      return (value as string).trim() || null
  }
}

/** The changed fields only, as the admin API's patch (null: back to medusa-config / env / default). */
export function patchOf(draft: Draft, initial: Draft, specs: readonly FieldSpec[]): Record<string, unknown> {
  let patch: Record<string, unknown> = {}
  for (const spec of specs) {
    if (changed(spec, draft[spec.path], initial[spec.path])) patch = setAt(patch, spec.path, stored(spec, draft[spec.path]))
  }
  return patch
}

/** The patch that puts a field back to medusa-config / env / default. */
export const resetPatch = (spec: FieldSpec) => setAt({}, spec.field ?? spec.path, null)

/** Error keys of the API's field errors: a list entry's error ("allowedBanks.0") is its list's. */
export function errorsOf(fields: { path: string; message: string }[]): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.path.replace(/\.\d+$/, ""), f.message]))
}
