import { canonicalJson } from "../inbox"

describe("canonicalJson", () => {
  it("is the same whatever order the sender wrote the keys in, nested objects included", () => {
    const a = JSON.parse('{"status":"closed","id":"t1","extra":{"b":1,"a":[{"y":2,"x":1}]}}')
    const b = JSON.parse('{"extra":{"a":[{"x":1,"y":2}],"b":1},"id":"t1","status":"closed"}')
    expect(canonicalJson(a)).toBe(canonicalJson(b))
    expect(canonicalJson(a)).toBe('{"extra":{"a":[{"x":1,"y":2}],"b":1},"id":"t1","status":"closed"}')
  })
})
