import i18next from "i18next"
import { renderToStaticMarkup } from "react-dom/server"
import { SEARCH_WINDOW } from "../../../../modules/payin/ledger/limits"
import en from "../../../i18n/json/en.json"
import ru from "../../../i18n/json/ru.json"
import { SearchGoesOn, isShortPageThatGoesOn } from "../search-goes-on"

const rows = (n: number) => ({ transactions: Array.from({ length: n }, () => ({}) as never), next_cursor: null as string | null })

describe("a broad search's short page", () => {
  it("is one with fewer rows than the page and a next cursor; a full page or the last page is not", () => {
    expect(isShortPageThatGoesOn({ ...rows(0), next_cursor: "abc" }, 20)).toBe(true)
    expect(isShortPageThatGoesOn({ ...rows(7), next_cursor: "abc" }, 20)).toBe(true)
    expect(isShortPageThatGoesOn({ ...rows(20), next_cursor: "abc" }, 20)).toBe(false)
    expect(isShortPageThatGoesOn(rows(7), 20)).toBe(false)
    expect(isShortPageThatGoesOn(undefined, 20)).toBe(false)
  })

  it("says, in English and Russian, how many pay-ins a page reads and that Next searches on", async () => {
    const i18n = i18next.createInstance()
    await i18n.init({ resources: { en: { translation: en }, ru: { translation: ru } }, lng: "en", interpolation: { escapeValue: false } })
    const html = (language: string) => renderToStaticMarkup(<SearchGoesOn t={i18n.getFixedT(language)} language={language} />)
    expect(html("en")).toContain(`reads ${SEARCH_WINDOW.toLocaleString("en")} pay-ins per page`)
    expect(html("en")).toContain("Next searches on")
    expect(html("ru")).toContain(SEARCH_WINDOW.toLocaleString("ru"))
    expect(html("ru")).toContain("продолжит поиск")
  })
})
