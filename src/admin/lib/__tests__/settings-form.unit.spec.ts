import { type FieldSpec, draftOf, errorsOf, patchOf, resetPatch, setAt } from "../settings-form"

const SPECS: FieldSpec[] = [
  { path: "apiKey", kind: "secret", label: "apiKey" },
  { path: "baseUrl", kind: "text", label: "baseUrl" },
  { path: "timeoutMs", kind: "number", label: "timeoutMs" },
  { path: "signRequests", kind: "switch", label: "signRequests" },
  { path: "paymentPage.successUrl", kind: "text", label: "successUrl" },
  { path: "paymentPage.locale", kind: "select", label: "locale" },
  { path: "allowedRedirectOrigins", kind: "lines", label: "allowedRedirectOrigins" },
  { path: "allowedMethods", kind: "choices", label: "allowedMethods" },
  { path: "amountPolicy.mode", field: "amountPolicy", kind: "select", label: "amountPolicy" },
  { path: "amountPolicy.tolerancePercent", kind: "number", label: "tolerancePercent", empty: 0 },
]

const VALUES = {
  baseUrl: "https://pay.example.com",
  timeoutMs: 15000,
  signRequests: true,
  paymentPage: { locale: "RU" },
  allowedRedirectOrigins: ["https://a.example", "https://b.example"],
  allowedMethods: ["card", "account"],
  amountPolicy: { mode: "fixed", tolerancePercent: 0 },
}

describe("the settings form's model", () => {
  const initial = draftOf(VALUES, SPECS)

  it("shows stored values as the form edits them: text for numbers and lines, nothing for a secret or an unset field", () => {
    expect(initial).toEqual({
      apiKey: "",
      baseUrl: "https://pay.example.com",
      timeoutMs: "15000",
      signRequests: true,
      "paymentPage.successUrl": "",
      "paymentPage.locale": "RU",
      allowedRedirectOrigins: "https://a.example\nhttps://b.example",
      allowedMethods: ["card", "account"],
      "amountPolicy.mode": "fixed",
      "amountPolicy.tolerancePercent": "0",
    })
  })

  it("an untouched form changes nothing; reordered choices and re-spaced lines are no change", () => {
    expect(patchOf(initial, initial, SPECS)).toEqual({})
    const same = { ...initial, allowedMethods: ["account", "card"], allowedRedirectOrigins: " https://a.example \n\nhttps://b.example\n", apiKey: "   " }
    expect(patchOf(same, initial, SPECS)).toEqual({})
  })

  it("sends only the changed fields, nested in their groups, as the API stores them", () => {
    const draft = {
      ...initial,
      apiKey: " key-12345678 ",
      timeoutMs: "20000",
      signRequests: false,
      "paymentPage.successUrl": " https://shop.example/thanks ",
      allowedRedirectOrigins: "https://a.example",
      allowedMethods: ["card"],
      "amountPolicy.mode": "range",
    }
    expect(patchOf(draft, initial, SPECS)).toEqual({
      apiKey: "key-12345678",
      timeoutMs: 20000,
      signRequests: false,
      paymentPage: { successUrl: "https://shop.example/thanks" },
      allowedRedirectOrigins: ["https://a.example"],
      allowedMethods: ["card"],
      amountPolicy: { mode: "range" },
    })
  })

  it("an emptied field goes back to medusa-config / env / default, unless it says what empty means", () => {
    const draft = { ...initial, baseUrl: "  ", timeoutMs: "", "paymentPage.locale": "", "amountPolicy.tolerancePercent": "" }
    expect(patchOf(draft, initial, SPECS)).toEqual({
      baseUrl: null,
      timeoutMs: null,
      paymentPage: { locale: null },
      amountPolicy: { tolerancePercent: 0 },
    })
  })

  it("resets a field, or the group it is edited as", () => {
    expect(resetPatch(SPECS[4])).toEqual({ paymentPage: { successUrl: null } })
    expect(resetPatch(SPECS[8])).toEqual({ amountPolicy: null })
    expect(resetPatch(SPECS[1])).toEqual({ baseUrl: null })
  })

  it("setAt keeps the other fields of a group", () => {
    expect(setAt({ paymentPage: { locale: "EN" }, baseUrl: "x" }, "paymentPage.failureUrl", "y")).toEqual({
      paymentPage: { locale: "EN", failureUrl: "y" },
      baseUrl: "x",
    })
  })

  it("puts a list entry's error on its list", () => {
    expect(errorsOf([{ path: "allowedRedirectOrigins.1", message: "bad" }, { path: "paymentPage.supportLink", message: "no" }])).toEqual({
      allowedRedirectOrigins: "bad",
      "paymentPage.supportLink": "no",
    })
  })
})
