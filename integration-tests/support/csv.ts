// A strict RFC 4180 reader for the specs: records end with CRLF, a quoted field may hold commas,
// CR, LF and doubled quotes; anything else (a bare quote inside an unquoted field, a lone LF as a
// record end) throws, so a malformed export fails the test instead of being read leniently.
export function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let i = 0
  const n = text.length
  while (i < n) {
    let field = ""
    if (text[i] === '"') {
      i++
      for (;;) {
        if (i >= n) throw new Error("unterminated quoted field")
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"'
            i += 2
            continue
          }
          i++
          break
        }
        field += text[i++]
      }
    } else {
      while (i < n && text[i] !== "," && text[i] !== "\r" && text[i] !== "\n") {
        if (text[i] === '"') throw new Error(`bare quote in an unquoted field at ${i}`)
        field += text[i++]
      }
    }
    record.push(field)
    if (text[i] === ",") {
      i++
      continue
    }
    if (text[i] === "\r" && text[i + 1] === "\n") {
      records.push(record)
      record = []
      i += 2
      continue
    }
    throw new Error(`expected a comma or CRLF at ${i}, found ${JSON.stringify(text.slice(i, i + 10))}`)
  }
  if (record.length) throw new Error("the last record does not end with CRLF")
  return records
}
