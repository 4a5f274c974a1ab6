// "Reconcile now": a fresh lookup at the service applied through the webhook path.
import { Button, Text, toast } from "@medusajs/ui"
import { useState } from "react"
import { useTranslation } from "react-i18next"
import { ReconcileResult, useReconcile } from "../lib/transactions-api"

export function ReconcileButton({ id, testId, resultTestId }: { id: string; testId: string; resultTestId?: string }) {
  const { t } = useTranslation()
  const reconcile = useReconcile()
  const [result, setResult] = useState<ReconcileResult | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  const status = (s: string) => t(`payin.status.${s}`, { defaultValue: s })

  const run = () => {
    setFailure(null)
    reconcile.mutate(id, {
      onSuccess: (data) => {
        setResult(data.result)
        toast.success(t("payin.detail.reconcile"), { description: describe(data.result) })
      },
      onError: (error) => {
        setFailure(error.message)
        toast.error(t("payin.detail.reconcileFailed", { message: error.message }))
      },
    })
  }
  const describe = (r: ReconcileResult) =>
    !r.found
      ? t("payin.detail.reconcileNotFound")
      : r.from !== r.to
        ? t("payin.detail.reconcileChanged", { from: status(r.from), to: status(r.to) })
        : t("payin.detail.reconcileSame", { to: status(r.to) })

  return (
    <div className="flex flex-col items-end gap-1">
      <Button size="small" variant="secondary" onClick={run} isLoading={reconcile.isPending} data-testid={testId}>
        {reconcile.isPending ? t("payin.detail.reconciling") : t("payin.detail.reconcile")}
      </Button>
      {(result || failure) && (
        <Text size="xsmall" className={failure ? "text-ui-fg-error" : "text-ui-fg-subtle"} data-testid={resultTestId} data-to={result?.to}>
          {failure ? t("payin.detail.reconcileFailed", { message: failure }) : describe(result!)}
          {result?.effects.length ? ` · ${t("payin.detail.effects", { effects: result.effects.join(", ") })}` : ""}
        </Text>
      )}
    </div>
  )
}
