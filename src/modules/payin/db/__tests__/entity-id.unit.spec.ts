import { generateEntityId } from "@medusajs/framework/utils"
import { entityId } from "../entity-id"

describe("entityId", () => {
  it("has the form of Medusa's generateEntityId: the prefix, then 26 Crockford characters", () => {
    const ours = entityId("payinwh")
    const medusa = generateEntityId(undefined, "payinwh")
    expect(ours).toMatch(/^payinwh_[0-9A-HJKMNP-TV-Z]{26}$/)
    expect(ours.length).toBe(medusa.length)
  })

  it("starts with the same time part as Medusa's for the same millisecond, so ids sort by creation time", () => {
    const now = 1_764_400_000_123
    const clock = jest.spyOn(Date, "now").mockReturnValue(now)
    try {
      expect(entityId("x").slice(0, 12)).toBe(generateEntityId(undefined, "x").slice(0, 12))
    } finally {
      clock.mockRestore()
    }
    expect(entityId("x", now) < entityId("x", now + 1)).toBe(true)
    expect(entityId("x", 2 ** 40) > entityId("x", 2 ** 40 - 1)).toBe(true)
  })

  it("gives distinct ids, past many pool refills", () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => entityId("x", 1)))
    expect(ids.size).toBe(20_000)
  })
})
