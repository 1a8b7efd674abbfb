/**
 * Machine-readable zone: pick MRZ rows out of OCR text, repair the known OCR confusions (driven by the
 * ICAO 9303 check digits), parse TD1 / TD2 / TD3 with `mrz` (autocorrect) and verify every check digit.
 * Pure functions (no OCR here; ocr.ts finds and re-reads the zone).
 */
import { parse } from 'mrz'

export type MrzFormat = 'TD1' | 'TD2' | 'TD3'

export interface CheckDigitResult {
  field: 'document_number' | 'birth_date' | 'expiry_date' | 'personal_number' | 'optional' | 'composite'
  expected: string
  actual: string
  valid: boolean
}

export interface MrzResult {
  format: MrzFormat
  lines: string[]
  surname: string
  givenNames: string
  documentNumber: string
  /** YYYY-MM-DD */
  birthDate: string | null
  /** YYYY-MM-DD */
  expiryDate: string | null
  nationality: string
  issuingState: string
  sex: 'M' | 'F' | 'X' | null
  documentCode: string
  /** every check digit valid (and `mrz` accepted the fields, state codes aside) */
  valid: boolean
  /** issuing state and nationality are known ICAO codes */
  stateKnown: boolean
  checkDigits: CheckDigitResult[]
  /** characters changed by the repair step (OCR confusions), for the audit trail */
  corrections: number
}

const WEIGHTS = [7, 3, 1]
const charValue = (c: string): number => {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48
  if (c >= 'A' && c <= 'Z') return c.charCodeAt(0) - 55
  return 0 // '<'
}

/** ICAO 9303 check digit (weights 7-3-1, '<' = 0). */
export function checkDigit(s: string): string {
  let sum = 0
  for (let i = 0; i < s.length; i++) sum += charValue(s[i] as string) * (WEIGHTS[i % 3] as number)
  return String(sum % 10)
}

interface Span { line: number; start: number; end: number }
interface CheckSpec { field: CheckDigitResult['field']; spans: Span[]; digit: Span; optionalIfEmpty?: boolean }

const LAYOUT: Record<MrzFormat, { rows: number; len: number; checks: CheckSpec[]; numeric: Span[]; alpha: Span[] }> = {
  TD3: {
    rows: 2, len: 44,
    checks: [
      { field: 'document_number', spans: [{ line: 1, start: 0, end: 9 }], digit: { line: 1, start: 9, end: 10 } },
      { field: 'birth_date', spans: [{ line: 1, start: 13, end: 19 }], digit: { line: 1, start: 19, end: 20 } },
      { field: 'expiry_date', spans: [{ line: 1, start: 21, end: 27 }], digit: { line: 1, start: 27, end: 28 } },
      { field: 'personal_number', spans: [{ line: 1, start: 28, end: 42 }], digit: { line: 1, start: 42, end: 43 }, optionalIfEmpty: true },
      { field: 'composite', spans: [{ line: 1, start: 0, end: 10 }, { line: 1, start: 13, end: 20 }, { line: 1, start: 21, end: 43 }], digit: { line: 1, start: 43, end: 44 } },
    ],
    numeric: [{ line: 1, start: 9, end: 10 }, { line: 1, start: 13, end: 20 }, { line: 1, start: 21, end: 28 }, { line: 1, start: 43, end: 44 }],
    alpha: [{ line: 0, start: 0, end: 1 }, { line: 0, start: 2, end: 44 }, { line: 1, start: 10, end: 13 }],
  },
  TD2: {
    rows: 2, len: 36,
    checks: [
      { field: 'document_number', spans: [{ line: 1, start: 0, end: 9 }], digit: { line: 1, start: 9, end: 10 } },
      { field: 'birth_date', spans: [{ line: 1, start: 13, end: 19 }], digit: { line: 1, start: 19, end: 20 } },
      { field: 'expiry_date', spans: [{ line: 1, start: 21, end: 27 }], digit: { line: 1, start: 27, end: 28 } },
      { field: 'composite', spans: [{ line: 1, start: 0, end: 10 }, { line: 1, start: 13, end: 20 }, { line: 1, start: 21, end: 35 }], digit: { line: 1, start: 35, end: 36 } },
    ],
    numeric: [{ line: 1, start: 9, end: 10 }, { line: 1, start: 13, end: 20 }, { line: 1, start: 21, end: 28 }, { line: 1, start: 35, end: 36 }],
    alpha: [{ line: 0, start: 0, end: 1 }, { line: 0, start: 2, end: 36 }, { line: 1, start: 10, end: 13 }],
  },
  TD1: {
    rows: 3, len: 30,
    checks: [
      { field: 'document_number', spans: [{ line: 0, start: 5, end: 14 }], digit: { line: 0, start: 14, end: 15 } },
      { field: 'birth_date', spans: [{ line: 1, start: 0, end: 6 }], digit: { line: 1, start: 6, end: 7 } },
      { field: 'expiry_date', spans: [{ line: 1, start: 8, end: 14 }], digit: { line: 1, start: 14, end: 15 } },
      { field: 'composite', spans: [{ line: 0, start: 5, end: 30 }, { line: 1, start: 0, end: 7 }, { line: 1, start: 8, end: 15 }, { line: 1, start: 18, end: 29 }], digit: { line: 1, start: 29, end: 30 } },
    ],
    numeric: [{ line: 0, start: 14, end: 15 }, { line: 1, start: 0, end: 7 }, { line: 1, start: 8, end: 15 }, { line: 1, start: 29, end: 30 }],
    alpha: [{ line: 0, start: 0, end: 1 }, { line: 0, start: 2, end: 5 }, { line: 1, start: 15, end: 18 }, { line: 2, start: 0, end: 30 }],
  },
}

const TO_DIGIT: Record<string, string> = { O: '0', Q: '0', D: '0', U: '0', I: '1', L: '1', T: '1', Z: '2', S: '5', B: '8', G: '6', A: '4', '<': '<' }
const TO_ALPHA: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '8': 'B', '6': 'G', '4': 'A' }
/**
 * Alternatives tried when a check digit fails: only OCR confusions of a LETTER read where a digit or filler
 * belongs. Digits are never changed into other digits or letters: with 7-3-1 weights a check digit is met by
 * 1 in 10 random edits, so allowing digit edits would "repair" almost any forged digit into a valid MRZ.
 */
const ALTERNATIVES: Record<string, string[]> = {
  O: ['0'], Q: ['0'], D: ['0'], I: ['1'], L: ['1', '<'], Z: ['2'], S: ['5'], B: ['8'], G: ['6'], K: ['<'], C: ['<'], E: ['<'],
}

const inSpans = (spans: Span[], line: number, col: number): boolean => spans.some((s) => s.line === line && col >= s.start && col < s.end)

/** Normalise raw OCR rows: upper case, drop spaces, common look-alikes of '<'. */
export const cleanRow = (s: string): string =>
  s.toUpperCase().replace(/\s+/g, '').replace(/[«‹＜(\[{]/g, '<').replace(/[^A-Z0-9<]/g, '')

/**
 * The generic eng model splits the wide '<' glyph into '<K' / '<L': when a row is too long, drop K then L
 * characters that follow a '<' (left to right) until it has the expected length.
 */
export function squeeze(row: string, len: number): string {
  if (row.length <= len || row.length > len + 14) return row
  let s = row
  for (const ch of ['K', 'L', 'C']) {
    while (s.length > len) {
      const i = s.indexOf('<' + ch)
      if (i < 0) break
      s = s.slice(0, i + 1) + s.slice(i + 2)
    }
  }
  return s
}

/** Choose the consecutive rows that best fit TD3 (2x44), TD2 (2x36) or TD1 (3x30). */
export function pickMrzRows(rawRows: string[]): { format: MrzFormat; rows: string[] } | null {
  const rows = rawRows.map(cleanRow).filter((r) => r.length >= 20)
  const lt = (s: string) => (s.match(/[<]/g) ?? []).length
  let best: { format: MrzFormat; rows: string[]; score: number } | null = null
  for (const format of ['TD3', 'TD2', 'TD1'] as const) {
    const { rows: n, len } = LAYOUT[format]
    for (let i = 0; i + n <= rows.length; i++) {
      const w = rows.slice(i, i + n).map((s) => squeeze(s, len))
      if (w.some((s) => s.length < len - 3 || s.length > len + 3)) continue
      const score = w.reduce((a, s) => a + Math.min(lt(s), 10) - 2 * Math.abs(s.length - len), 0) + 5
      if (!best || score > best.score) best = { format, rows: w.map((s) => (s.length > len ? s.slice(0, len) : s.padEnd(len, '<'))), score }
    }
  }
  return best ? { format: best.format, rows: best.rows } : null
}

function verify(format: MrzFormat, rows: string[]): CheckDigitResult[] {
  return LAYOUT[format].checks.map((c) => {
    const data = c.spans.map((s) => (rows[s.line] ?? '').slice(s.start, s.end)).join('')
    const actual = (rows[c.digit.line] ?? '').slice(c.digit.start, c.digit.end)
    const expected = checkDigit(data)
    // an empty optional field may carry '<' as its check digit
    const valid = actual === expected || (!!c.optionalIfEmpty && actual === '<' && /^<*$/.test(data))
    return { field: c.field, expected, actual, valid }
  })
}

/**
 * Repair rows: positional character classes (digits where only digits may be, letters where only letters),
 * '<' fillers misread as K/L/C/E in name fields, then per-check-digit search over single and double
 * substitutions of the usual confusions (a change is kept only when it makes that check digit valid and
 * leaves every other valid one valid).
 */
export function repairMrz(format: MrzFormat, input: string[]): { rows: string[]; corrections: number } {
  const L = LAYOUT[format]
  const rows = input.map((r) => r.split(''))
  let corrections = 0
  const set = (line: number, col: number, ch: string) => {
    const row = rows[line]
    if (row && row[col] !== ch) { row[col] = ch; corrections++ }
  }
  for (let line = 0; line < rows.length; line++) {
    const row = rows[line] as string[]
    for (let col = 0; col < row.length; col++) {
      const ch = row[col] as string
      if (inSpans(L.numeric, line, col) && !/[0-9<]/.test(ch) && TO_DIGIT[ch]) set(line, col, TO_DIGIT[ch] as string)
      else if (inSpans(L.alpha, line, col) && /[0-9]/.test(ch) && TO_ALPHA[ch]) set(line, col, TO_ALPHA[ch] as string)
    }
  }
  // document code: 'P<' / 'I<' / 'A<' / 'C<': the filler is often read as K, L, C or E
  const r0 = rows[0] as string[]
  if (format !== 'TD1' && r0[0] === 'P' && /[KLCE]/.test(r0[1] ?? '')) set(0, 1, '<')
  if (format === 'TD1' && /[IAC]/.test(r0[0] ?? '') && /[KLCE]/.test(r0[1] ?? '') && r0[1] !== 'D') set(0, 1, '<')
  // name field: trailing filler run and the '<<' separator
  const nameLine = format === 'TD1' ? 2 : 0
  const nameStart = format === 'TD1' ? 0 : 5
  const nr = rows[nameLine] as string[]
  let end = nr.length
  while (end > nameStart && /[<KLCE]/.test(nr[end - 1] ?? '')) end--
  // keep a real trailing letter only if the run before it was not filler-looking: the run is filler
  for (let c = end; c < nr.length; c++) set(nameLine, c, '<')
  const name = nr.slice(nameStart, end).join('')
  if (!name.includes('<<')) {
    const m = /^([A-Z<]{2,}?)([KLC]{2})(?=[A-Z])/.exec(name)
    if (m && m[1]) { set(nameLine, nameStart + m[1].length, '<'); set(nameLine, nameStart + m[1].length + 1, '<') }
  }
  // optional / personal-number fields that look like filler runs
  for (const c of L.checks) {
    if (c.field !== 'personal_number') continue
    for (const s of c.spans) {
      const seg = (rows[s.line] as string[]).slice(s.start, s.end).join('')
      if (/^[<KLCE]+$/.test(seg) || /^[A-Z0-9]*?[<KLCE]{3,}$/.test(seg)) {
        const m = /[<KLCE]{3,}$/.exec(seg)
        if (m) for (let k = s.start + m.index; k < s.end; k++) set(s.line, k, '<')
      }
    }
  }
  const str = () => rows.map((r) => r.join(''))
  // document number prior: letters-then-digits is the common layout, so O/Q/D/I/Z/S/B/G in the digit tail
  // become digits; kept only if that makes its check digit valid
  const dn = L.checks[0]!
  const dnSpan = dn.spans[0]!
  const dnRow = rows[dnSpan.line] as string[]
  // the longest tail of the field made of digits and digit-like letters
  let tail = dnSpan.end
  while (tail > dnSpan.start && /[0-9OQDIZSBG]/.test(dnRow[tail - 1] ?? '')) tail--
  while (tail < dnSpan.end && (dnRow[tail] ?? '<') === '<') tail++
  const hasDigit = dnRow.slice(tail, dnSpan.end).some((c) => /[0-9]/.test(c))
  if (hasDigit && !verify(format, str()).find((x) => x.field === 'document_number')?.valid) {
    const before = [...dnRow]
    let changed = 0
    for (let k = tail; k < dnSpan.end; k++) {
      const c = dnRow[k] as string
      if (/[A-Z]/.test(c) && TO_DIGIT[c]) { dnRow[k] = TO_DIGIT[c] as string; changed++ }
    }
    const v = verify(format, str())
    if (changed && v.find((x) => x.field === 'document_number')?.valid && (v.find((x) => x.field === 'composite')?.valid ?? true)) corrections += changed
    else rows[dnSpan.line] = before
  }
  // check-digit-driven search
  for (const c of L.checks) {
    if (verify(format, str()).find((x) => x.field === c.field)?.valid) continue
    const positions: Array<[number, number]> = []
    for (const s of [...c.spans, c.digit]) for (let k = s.start; k < s.end; k++) {
      if (ALTERNATIVES[(rows[s.line] as string[])[k] as string]) positions.push([s.line, k])
    }
    const validBefore = verify(format, str()).filter((x) => x.valid).map((x) => x.field)
    // a repair must also satisfy the composite digit (independent evidence): a lone check digit is
    // satisfied by 1 in 10 random edits, both by 1 in 100
    const needComposite = c.field !== 'composite' && L.checks.some((x) => x.field === 'composite')
    const ok = (): boolean => {
      const v = verify(format, str())
      return !!v.find((x) => x.field === c.field)?.valid && validBefore.every((f) => v.find((x) => x.field === f)?.valid) &&
        (!needComposite || !!v.find((x) => x.field === 'composite')?.valid)
    }
    // own-field checks: every combination of alternatives (bounded); composite: one or two changes
    const own = c.field !== 'composite'
    const opts = positions.map(([line, col]) => {
      const orig = (rows[line] as string[])[col] as string
      const alts = (ALTERNATIVES[orig] ?? []).filter((alt) =>
        !(inSpans(L.numeric, line, col) && !/[0-9<]/.test(alt)) && !(inSpans(L.alpha, line, col) && /[0-9]/.test(alt)) &&
        // a filler only extends a filler run (never opens a hole inside a number)
        (alt !== '<' || ((rows[line] as string[])[col + 1] ?? '<') === '<'))
      return { line, col, orig, choices: [orig, ...alts] }
    })
    const total = opts.reduce((a, o) => a * o.choices.length, 1)
    if (own && total <= 20_000) {
      // enumerate by number of changes (fewest first)
      let found: string[] | null = null
      for (let maxChanges = 1; maxChanges <= opts.length && !found; maxChanges++) {
        const pick = (i: number, changes: number): boolean => {
          if (i === opts.length) return changes === maxChanges && ok()
          const o = opts[i]!
          for (let k = 0; k < o.choices.length; k++) {
            const nc = changes + (k > 0 ? 1 : 0)
            if (nc > maxChanges) break
            ;(rows[o.line] as string[])[o.col] = o.choices[k] as string
            if (pick(i + 1, nc)) return true
          }
          ;(rows[o.line] as string[])[o.col] = o.orig
          return false
        }
        if (pick(0, 0)) found = str()
        if (maxChanges >= 2) break
      }
      if (found) corrections += opts.filter((o) => (rows[o.line] as string[])[o.col] !== o.orig).length
      else for (const o of opts) (rows[o.line] as string[])[o.col] = o.orig
    } else if (positions.length <= 60) {
      const tryAt = (idx: number, depth: number): boolean => {
        for (let i = idx; i < opts.length; i++) {
          const o = opts[i]!
          for (const alt of o.choices.slice(1)) {
            ;(rows[o.line] as string[])[o.col] = alt
            if (ok() || (depth > 1 && tryAt(i + 1, depth - 1))) { corrections++; return true }
            ;(rows[o.line] as string[])[o.col] = o.orig
          }
        }
        return false
      }
      if (!tryAt(0, 1)) tryAt(0, 2)
    }
  }
  return { rows: str(), corrections }
}

const isoDate = (yymmdd: string | null | undefined, kind: 'birth' | 'expiry', now = new Date()): string | null => {
  if (!yymmdd || !/^\d{6}$/.test(yymmdd)) return null
  const yy = Number(yymmdd.slice(0, 2))
  const mm = Number(yymmdd.slice(2, 4))
  const dd = Number(yymmdd.slice(4, 6))
  if (mm < 1 || mm > 12 || dd < 1 || dd > 31) return null
  const cur = now.getUTCFullYear() % 100
  // birth dates are in the past; expiry dates up to ~20 years ahead
  const century = kind === 'birth' ? (yy > cur ? 1900 : 2000) : yy > cur + 30 ? 1900 : 2000
  return `${century + yy}-${String(mm).padStart(2, '0')}-${String(dd).padStart(2, '0')}`
}

/** Repair, parse and verify a candidate MRZ (rows already picked). */
export function parseMrz(format: MrzFormat, rawRows: string[], opts: { repair?: boolean; now?: Date } = {}): MrzResult {
  const { rows, corrections } = opts.repair === false ? { rows: rawRows, corrections: 0 } : repairMrz(format, rawRows)
  const checks = verify(format, rows)
  let fields: Record<string, string | null | undefined> = {}
  let libValid = false
  let stateKnown = true
  try {
    const r = parse(rows, { autocorrect: true })
    fields = r.fields as Record<string, string | null | undefined>
    // unknown state codes (e.g. ICAO's fictional UTO) are reported, not fatal
    const bad = r.details.filter((d) => !d.valid)
    stateKnown = !bad.some((d) => d.field === 'issuingState' || d.field === 'nationality')
    libValid = bad.every((d) => d.field === 'issuingState' || d.field === 'nationality')
  } catch {
    /* fall back to positional extraction below */
  }
  const name = format === 'TD1' ? (rows[2] ?? '') : (rows[0] ?? '').slice(5)
  const [sur = '', given = ''] = name.split('<<')
  const line2 = rows[1] ?? ''
  const pos = format === 'TD1'
    ? { doc: (rows[0] ?? '').slice(5, 14), birth: line2.slice(0, 6), exp: line2.slice(8, 14), nat: line2.slice(15, 18), sex: line2[7], state: (rows[0] ?? '').slice(2, 5), code: (rows[0] ?? '').slice(0, 2) }
    : { doc: line2.slice(0, 9), birth: line2.slice(13, 19), exp: line2.slice(21, 27), nat: line2.slice(10, 13), sex: line2[20], state: (rows[0] ?? '').slice(2, 5), code: (rows[0] ?? '').slice(0, 2) }
  const clean = (s: string | null | undefined) => (s ?? '').replace(/<+/g, ' ').trim()
  const sex = (fields.sex === 'male' ? 'M' : fields.sex === 'female' ? 'F' : pos.sex === 'M' || pos.sex === 'F' ? pos.sex : pos.sex === '<' || pos.sex === 'X' ? 'X' : null) as MrzResult['sex']
  return {
    format,
    lines: rows,
    surname: clean(fields.lastName ?? sur),
    givenNames: clean(fields.firstName ?? given),
    documentNumber: clean(fields.documentNumber ?? pos.doc),
    birthDate: isoDate(fields.birthDate ?? pos.birth, 'birth', opts.now),
    expiryDate: isoDate(fields.expirationDate ?? pos.exp, 'expiry', opts.now),
    nationality: clean(fields.nationality ?? pos.nat),
    issuingState: clean(fields.issuingState ?? pos.state),
    sex,
    documentCode: clean(fields.documentCode ?? pos.code),
    valid: checks.every((c) => c.valid) && libValid,
    stateKnown,
    checkDigits: checks,
    corrections,
  }
}

/** From OCR rows (any text): pick, repair, parse. Null when nothing MRZ-shaped is there. */
export function mrzFromText(text: string | string[], opts: { repair?: boolean; now?: Date } = {}): MrzResult | null {
  const rows = Array.isArray(text) ? text : text.split(/\r?\n/)
  const picked = pickMrzRows(rows)
  if (!picked) return null
  return parseMrz(picked.format, picked.rows, opts)
}
