// One instance-id rule: what the options accept is what telemetry sets and the insights filter takes.
import { insightsQuerySchema } from "../api/admin/payin/insights/validators"
import { providerOptionsSchema } from "../modules/payin/settings/options"
import { allowedAttributes } from "../telemetry/attributes"
import { instanceIdOf, payinProviderId } from "../provider-id"

const IDS = ["default", "eu-2", "0", "a".repeat(32), "a".repeat(33), "Default", "eu_2", "-eu", "", "a.b", "ünï"]

describe("instance ids", () => {
  it.each(IDS)("%j: accepted by the options, telemetry and the insights filter alike", (id) => {
    const accepted = providerOptionsSchema.safeParse({ id }).success
    const providerId = payinProviderId(id)
    expect(allowedAttributes({ "payin.provider_id": providerId })["payin.provider_id"] === providerId).toBe(accepted)
    expect(insightsQuerySchema.safeParse({ provider_id: providerId }).success).toBe(accepted)
    if (accepted) expect(instanceIdOf(providerId)).toBe(id)
  })

  it("accepts the usual ids and refuses the others", () => {
    expect(IDS.filter((id) => providerOptionsSchema.safeParse({ id }).success)).toEqual(["default", "eu-2", "0", "a".repeat(32)])
  })
})
