import { getMessages, payinMessages, requisiteLabels, stateText } from "../messages"
import type { ShopperState } from "../types"

const STATES: ShopperState[] = ["pending", "awaiting_payment", "in_review", "paid", "expired", "canceled", "failed"]

describe("payinMessages", () => {
  it("has every English entry in Russian too, none empty", () => {
    expect(Object.keys(payinMessages.ru).sort()).toEqual(Object.keys(payinMessages.en).sort())
    for (const locale of ["en", "ru"] as const) {
      for (const [key, value] of Object.entries(payinMessages[locale])) {
        if (typeof value === "string") expect([key, value.trim().length > 0]).toEqual([key, true])
      }
    }
  })

  it("says the time left in words (English)", () => {
    const { timeLeftWords } = payinMessages.en
    expect(timeLeftWords(872)).toBe("14 minutes 32 seconds left")
    expect(timeLeftWords(1)).toBe("1 second left")
    expect(timeLeftWords(60)).toBe("1 minute left")
    expect(timeLeftWords(3661)).toBe("1 hour 1 minute 1 second left")
    expect(timeLeftWords(0)).toBe("0 seconds left")
  })

  it("names what a copy button copied and what a QR code is for, in both languages", () => {
    expect(payinMessages.en.copiedLabel("Card number")).toBe("Copied: Card number")
    expect(payinMessages.ru.copiedLabel("Номер карты")).toBe("Скопировано: Номер карты")
    expect(payinMessages.en.qrAlt("RUB 1,790.00", true)).toBe("SBP QR code to pay RUB 1,790.00")
    expect(payinMessages.en.qrAlt(null, false)).toBe("QR code for this payment")
    expect(payinMessages.ru.qrAlt("1 790,00 ₽", true)).toBe("QR-код СБП для оплаты 1 790,00 ₽")
    expect(payinMessages.ru.qrAlt("1 790,00 ₽", false)).toBe("QR-код ссылки для оплаты 1 790,00 ₽")
  })

  it("says the time left in words with Russian plural forms", () => {
    const { timeLeftWords } = payinMessages.ru
    expect(timeLeftWords(872)).toBe("До конца оплаты 14 минут 32 секунды")
    expect(timeLeftWords(61)).toBe("До конца оплаты 1 минута 1 секунда")
    expect(timeLeftWords(122)).toBe("До конца оплаты 2 минуты 2 секунды")
    expect(timeLeftWords(11 * 60 + 11)).toBe("До конца оплаты 11 минут 11 секунд")
    expect(timeLeftWords(21 * 60 + 25)).toBe("До конца оплаты 21 минута 25 секунд")
    expect(timeLeftWords(2 * 3600 + 5)).toBe("До конца оплаты 2 часа 5 секунд")
  })

  it("names every state, differently", () => {
    for (const locale of ["en", "ru"] as const) {
      const texts = STATES.map((s) => stateText(s, payinMessages[locale]))
      expect(new Set(texts).size).toBe(STATES.length)
    }
    expect(stateText("awaiting_payment", payinMessages.ru)).toBe("Ждём ваш перевод")
  })

  it("labels requisites by method", () => {
    const en = payinMessages.en
    expect(requisiteLabels("2202201234567890", "card", en)).toEqual({ label: "Card number", copyLabel: "Copy card number" })
    expect(requisiteLabels("2202201234567890", "quasi", en).label).toBe("Card number")
    expect(requisiteLabels("40817810012345678901", "account", en).label).toBe("Account number")
    expect(requisiteLabels("+79123456789", "phone_number", en).label).toBe("Phone number")
    expect(requisiteLabels("+79123456789", "mobile_comm", en).label).toBe("Phone number")
    expect(requisiteLabels("https://qr.nspk.ru/AS1", "qr", en).label).toBe("Payment link")
    expect(requisiteLabels("Ivan / 12", "other", en).label).toBe("Payment details")
    expect(requisiteLabels("2202201234567890", "card", payinMessages.ru)).toEqual({
      label: "Номер карты",
      copyLabel: "Скопировать номер карты",
    })
  })

  it("shows bank names readably", () => {
    expect(payinMessages.en.bankName("vtb")).toBe("VTB")
    expect(payinMessages.en.bankName("sberbank")).toBe("Sberbank")
    expect(payinMessages.en.bankName("wise")).toBe("Wise")
    expect(payinMessages.en.bankName("T-Bank")).toBe("T-Bank")
  })
})

describe("getMessages", () => {
  it("picks Russian for ru-* and English otherwise", () => {
    expect(getMessages("ru-RU")).toBe(payinMessages.ru)
    expect(getMessages("de")).toBe(payinMessages.en)
  })

  it("lets callers override any entry without touching the built-ins", () => {
    const m = getMessages("en", { copy: "Copy it", timeLeftWords: () => "soon", amount: undefined })
    expect(m.copy).toBe("Copy it")
    expect(m.timeLeftWords(5)).toBe("soon")
    expect(m.amount).toBe("Amount to transfer")
    expect(payinMessages.en.copy).toBe("Copy")
  })
})

describe("pay again messages", () => {
  const CODES = ["payin_pay_again_off", "payin_grace_over", "payin_order_paid", "payin_order_canceled", "payin_not_this_provider"]

  it("names the button and the deadline in both languages", () => {
    expect(payinMessages.en.payAgain).toBe("Get new payment details")
    expect(payinMessages.ru.payAgain).toBe("Получить новые реквизиты")
    expect(payinMessages.en.payAgainUntil("Mar 2, 2025, 12:00 PM")).toBe("You can get new payment details until Mar 2, 2025, 12:00 PM.")
    expect(payinMessages.ru.payAgainUntil("2 мар. 2025 г., 12:00")).toBe("Новые реквизиты можно получить до 2 мар. 2025 г., 12:00.")
  })

  it("has its own text for every refusal code, in English and Russian, ending with the code", () => {
    for (const locale of ["en", "ru"] as const) {
      const texts = CODES.map((code) => payinMessages[locale].errorText(code, "server text"))
      CODES.forEach((code, i) => {
        expect([code, texts[i].endsWith(` (${code})`), texts[i].includes("server text")]).toEqual([code, true, false])
      })
      expect(new Set(texts).size).toBe(CODES.length)
    }
    expect(payinMessages.en.errorText("payin_grace_over", "x")).toBe("The time to get new payment details for this order is over. (payin_grace_over)")
    expect(payinMessages.ru.errorText("payin_order_paid", "x")).toBe("Этот заказ уже оплачен. (payin_order_paid)")
    expect(payinMessages.ru.errorText("payin_order_canceled", "x")).toMatch(/^Заказ отменён\./)
  })
})
