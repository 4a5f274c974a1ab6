import { copyText } from "../clipboard"

function setGlobal(name: string, value: unknown) {
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true })
}

function fakeDocument(execResult: boolean | Error) {
  const area = { value: "", style: { cssText: "" }, setAttribute: jest.fn(), select: jest.fn(), setSelectionRange: jest.fn(), remove: jest.fn() }
  const button = { focus: jest.fn() }
  const doc = {
    body: { appendChild: jest.fn() },
    activeElement: button,
    createElement: jest.fn(() => area),
    execCommand: jest.fn(() => {
      if (execResult instanceof Error) throw execResult
      return execResult
    }),
  }
  return { doc, area, button }
}

describe("copyText", () => {
  const saved = { navigator: Object.getOwnPropertyDescriptor(globalThis, "navigator"), document: Object.getOwnPropertyDescriptor(globalThis, "document") }
  afterEach(() => {
    for (const [name, descriptor] of Object.entries(saved)) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor)
      else delete (globalThis as Record<string, unknown>)[name]
    }
  })

  it("uses the Clipboard API when it is there", async () => {
    const writeText = jest.fn(async () => {})
    setGlobal("navigator", { clipboard: { writeText } })
    await expect(copyText("2202201234567890")).resolves.toBe(true)
    expect(writeText).toHaveBeenCalledWith("2202201234567890")
  })

  it("falls back to execCommand('copy') when the Clipboard API refuses, and gives focus back", async () => {
    setGlobal("navigator", { clipboard: { writeText: jest.fn(async () => Promise.reject(new Error("NotAllowedError"))) } })
    const { doc, area, button } = fakeDocument(true)
    setGlobal("document", doc)
    await expect(copyText("+79123456789")).resolves.toBe(true)
    expect(area.value).toBe("+79123456789")
    expect(doc.execCommand).toHaveBeenCalledWith("copy")
    expect(area.remove).toHaveBeenCalled()
    expect(button.focus).toHaveBeenCalled()
  })

  it("reports failure when nothing works", async () => {
    setGlobal("navigator", {})
    setGlobal("document", fakeDocument(new Error("unsupported")).doc)
    await expect(copyText("x")).resolves.toBe(false)
    setGlobal("document", fakeDocument(false).doc)
    await expect(copyText("x")).resolves.toBe(false)
    setGlobal("navigator", undefined)
    setGlobal("document", undefined)
    await expect(copyText("x")).resolves.toBe(false)
  })
})
