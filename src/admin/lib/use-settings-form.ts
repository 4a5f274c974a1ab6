import { toast } from "@medusajs/ui"
import { useEffect, useMemo, useState } from "react"
import { useTranslation } from "react-i18next"
import { ApiError } from "./api"
import type { OptionSource } from "./settings-api"
import { type Draft, type DraftValue, type FieldSpec, draftOf, errorsOf, patchOf, resetPatch } from "./settings-form"

export type SettingsForm = {
  draft: Draft
  set: (path: string, value: DraftValue) => void
  errors: Record<string, string>
  source: (field: string) => OptionSource | null
  save: () => Promise<void>
  reset: (spec: FieldSpec) => () => Promise<void>
  /** Shows an API failure: its field errors beside the fields, its message as a toast. */
  fail: (error: unknown) => void
  pending: boolean
}

export function useSettingsForm({
  values,
  sources,
  revision,
  specs,
  mutation,
}: {
  values: unknown
  sources: Record<string, OptionSource | null>
  revision: number
  specs: readonly FieldSpec[]
  mutation: { mutateAsync: (patch: Record<string, unknown>) => Promise<unknown>; isPending: boolean }
}): SettingsForm {
  const { t } = useTranslation()
  // by content: a refetch after the other form's save keeps what is typed here
  const stored = JSON.stringify(values)
  const initial = useMemo(() => draftOf(JSON.parse(stored), specs), [stored, specs])
  const [draft, setDraft] = useState<Draft>(initial)
  const [errors, setErrors] = useState<Record<string, string>>({})
  useEffect(() => setDraft(initial), [initial])

  const fail = (error: unknown) => {
    if (error instanceof ApiError && error.fields.length) setErrors(errorsOf(error.fields))
    toast.error(t("payin.settings.saveFailed", { message: error instanceof Error ? error.message : String(error) }))
  }
  const send = async (patch: Record<string, unknown>) => {
    await mutation.mutateAsync({ ...patch, revision })
    toast.success(t("payin.settings.saved"))
  }

  return {
    draft,
    set: (path, value) => setDraft((d) => ({ ...d, [path]: value })),
    errors,
    source: (field) => sources[field] ?? null,
    save: async () => {
      const patch = patchOf(draft, initial, specs)
      if (!Object.keys(patch).length) {
        toast.info(t("payin.settings.nothingChanged"))
        return
      }
      setErrors({})
      try {
        await send(patch)
        // a secret typed once is never kept in the form
        setDraft((d) => ({ ...d, ...Object.fromEntries(specs.filter((s) => s.kind === "secret").map((s) => [s.path, ""])) }))
      } catch (error) {
        fail(error)
      }
    },
    reset: (spec) => async () => {
      try {
        await send(resetPatch(spec))
      } catch (error) {
        fail(error)
      }
    },
    fail,
    pending: mutation.isPending,
  }
}
