// The settings page's building blocks: a section, a field's frame (label, where its value comes
// from, reset, hint, error) and the control each kind of field is edited with. Every control is
// named by its label (for=/id, or aria-labelledby for a group) and described by its hint and error.
import { Checkbox, Heading, Input, Label, Select, Switch, Text, Textarea } from "@medusajs/ui"
import type { ReactNode } from "react"
import { useTranslation } from "react-i18next"
import type { OptionSource } from "../../lib/settings-api"
import type { FieldSpec } from "../../lib/settings-form"
import type { SettingsForm } from "../../lib/use-settings-form"
import { SourceBadge } from "../common"

/** A section of the settings; its test id is also its id, so a link can lead to it (`/settings/payin#payin-section-connection`). */
export function Section({ title, testId, children }: { title: string; testId?: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-y-4 px-6 py-4 scroll-mt-4" id={testId} data-testid={testId}>
      <Heading level="h2">{title}</Heading>
      {children}
    </div>
  )
}

/** The ids tying a field's label, hint and error to its control. */
export const fieldIds = (controlId: string) => ({ label: `${controlId}-label`, hint: `${controlId}-hint`, error: `${controlId}-error` })

export function Field({
  field,
  controlId,
  label,
  hint,
  source,
  error,
  onReset,
  children,
}: {
  field: string
  /** The id of the control the label names. */
  controlId: string
  label: string
  hint?: string
  source?: OptionSource | null
  error?: string
  onReset?: () => void
  children: ReactNode
}) {
  const { t } = useTranslation()
  const ids = fieldIds(controlId)
  return (
    <div className="flex flex-col gap-y-1">
      <div className="flex items-center gap-x-2">
        <Label size="small" weight="plus" htmlFor={controlId} id={ids.label}>
          {label}
        </Label>
        <SourceBadge source={source} field={field} />
        {source === "admin" && onReset ? (
          <button type="button" className="text-ui-fg-interactive-hover txt-compact-xsmall" onClick={onReset} data-testid={`payin-reset-${field}`}>
            {t("payin.common.reset")}
          </button>
        ) : null}
      </div>
      {children}
      {hint ? <Text size="xsmall" className="text-ui-fg-subtle" id={ids.hint}>{hint}</Text> : null}
      {error ? (
        <Text size="xsmall" className="text-ui-fg-error" id={ids.error} data-testid={`payin-field-error-${field}`}>
          {error}
        </Text>
      ) : null}
    </div>
  )
}

/** The control of one field, bound to the form's draft (test id `payin-field-<path>`, id `payin-<path>`). */
function Control({ spec, form, describedBy, invalid }: { spec: FieldSpec; form: SettingsForm; describedBy?: string; invalid: boolean }) {
  const { t } = useTranslation()
  const label = (o: { label?: string; labelKey?: string }) => (o.labelKey ? t(`payin.settings.${o.labelKey}`) : o.label)
  const value = form.draft[spec.path]
  const testId = `payin-field-${spec.path}`
  const id = `payin-${spec.path}`
  const aria = { "aria-describedby": describedBy, "aria-invalid": invalid || undefined }
  const text = (e: { target: { value: string } }) => form.set(spec.path, e.target.value)
  switch (spec.kind) {
    case "switch":
      return <Switch id={id} {...aria} checked={value as boolean} onCheckedChange={(v) => form.set(spec.path, v)} data-testid={testId} />
    case "lines":
      return <Textarea id={id} {...aria} rows={3} value={value as string} onChange={text} data-testid={testId} />
    case "choices": {
      const chosen = value as string[]
      return (
        <div className="grid grid-cols-2 gap-2 sm:grid-cols-4" role="group" id={id} aria-labelledby={fieldIds(id).label} {...aria} data-testid={testId}>
          {spec.options?.map((o) => (
            <label key={o.value} className="flex items-center gap-2 txt-small">
              <Checkbox
                checked={chosen.includes(o.value)}
                onCheckedChange={(checked) => form.set(spec.path, checked ? [...chosen, o.value] : chosen.filter((x) => x !== o.value))}
                data-method={o.value}
              />
              {label(o)}
            </label>
          ))}
        </div>
      )
    }
    case "select":
      return (
        <div data-testid={testId}>
          <Select value={(value as string) || "__none"} onValueChange={(v) => form.set(spec.path, v === "__none" ? "" : v)} size="small">
            <Select.Trigger id={id} {...aria}>
              <Select.Value />
            </Select.Trigger>
            <Select.Content>
              {spec.options?.map((o) => (
                <Select.Item key={o.value || "__none"} value={o.value || "__none"}>
                  {label(o)}
                </Select.Item>
              ))}
            </Select.Content>
          </Select>
        </div>
      )
    default:
      return (
        <Input
          id={id}
          {...aria}
          type={spec.kind === "secret" ? "password" : spec.kind === "number" ? "number" : "text"}
          autoComplete={spec.kind === "secret" ? "new-password" : undefined}
          step={spec.step}
          placeholder={spec.placeholder}
          value={value as string}
          onChange={text}
          data-testid={testId}
        />
      )
  }
}

/** A field of the form: its frame and its control; `children` go between the label and the control. */
export function SettingField({
  spec,
  form,
  placeholder,
  children,
}: {
  spec: FieldSpec
  form: SettingsForm
  placeholder?: string
  children?: ReactNode
}) {
  const { t } = useTranslation()
  if (spec.visible && !spec.visible(form.draft)) return null
  const field = spec.field ?? spec.path
  const controlId = `payin-${spec.path}`
  const ids = fieldIds(controlId)
  const error = form.errors[spec.path] ?? form.errors[field]
  const describedBy = [spec.hint ? ids.hint : null, error ? ids.error : null].filter(Boolean).join(" ") || undefined
  return (
    <Field
      field={field}
      controlId={controlId}
      label={t(`payin.settings.${spec.label}`)}
      hint={spec.hint ? t(`payin.settings.${spec.label}Hint`) : undefined}
      source={form.source(field)}
      error={error}
      onReset={form.reset(spec)}
    >
      {children}
      <Control spec={placeholder === undefined ? spec : { ...spec, placeholder }} form={form} describedBy={describedBy} invalid={Boolean(error)} />
    </Field>
  )
}

/** Every field of a section, in order. */
export function SettingFields({ specs, form }: { specs: readonly FieldSpec[]; form: SettingsForm }) {
  return (
    <>
      {specs.map((spec) => (
        <SettingField key={spec.path} spec={spec} form={form} />
      ))}
    </>
  )
}
