// The `format`s GitHub's description uses, checked as strictly as a validating proxy does: each to its
// RFC's grammar, not to what `new URL()` or `Date.parse` happen to accept.

// RFC 3986, appendix A.
const HEX = '[0-9A-Fa-f]'
const PCT = `%${HEX}{2}`
const UNRESERVED = 'A-Za-z0-9\\-._~'
const SUB_DELIMS = "!$&'()*+,;="
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT})`
const DEC_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)'
const IPV4 = `${DEC_OCTET}(?:\\.${DEC_OCTET}){3}`
const H16 = `${HEX}{1,4}`
const LS32 = `(?:${H16}:${H16}|${IPV4})`
const IPV6 = [
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `(?:${H16})?::(?:${H16}:){4}${LS32}`,
  `(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}`,
  `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
  `(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
  `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
  `(?:(?:${H16}:){0,6}${H16})?::`,
]
  .map((form) => `(?:${form})`)
  .join('|')
const IP_FUTURE = `v${HEX}+\\.[${UNRESERVED}${SUB_DELIMS}:]+`
const IP_LITERAL = `\\[(?:${IPV6}|${IP_FUTURE})\\]`
const REG_NAME = `(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})*`
const USERINFO = `(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT})*`
const AUTHORITY = `(?:${USERINFO}@)?(?:${IP_LITERAL}|${IPV4}|${REG_NAME})(?::\\d*)?`
const PATH_ABEMPTY = `(?:/${PCHAR}*)*`
const PATH_ABSOLUTE = `/(?:${PCHAR}+${PATH_ABEMPTY})?`
const PATH_ROOTLESS = `${PCHAR}+${PATH_ABEMPTY}`
const HIER_PART = `(?://${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PATH_ROOTLESS}|)`
const QUERY = `(?:${PCHAR}|[/?])*`
/** `URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]`: absolute, every character allowed where it stands. */
const URI = new RegExp(`^[A-Za-z][A-Za-z0-9+\\-.]*:${HIER_PART}(?:\\?${QUERY})?(?:#${QUERY})?$`)

// RFC 6570, section 2: literals are any character but controls, space and `"'%<>\^`{|}` (percent only
// as an escape); expressions are `{operator? varspec,...}`.
const TEMPLATE_LITERAL = `(?:[^\\x00-\\x20"'%<>\\\\^\`{|}\\x7F]|${PCT})`
const VARCHAR = `(?:[A-Za-z0-9_]|${PCT})`
const VARSPEC = `${VARCHAR}(?:\\.?${VARCHAR})*(?::[1-9]\\d{0,3}|\\*)?`
const EXPRESSION = `\\{[+#./;?&=,!@|]?${VARSPEC}(?:,${VARSPEC})*\\}`
const URI_TEMPLATE = new RegExp(`^(?:${TEMPLATE_LITERAL}|${EXPRESSION})*$`)

// RFC 3339, section 5.6 (`T` and `Z` may be lower case, the seconds 60 on a leap second).
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/

// RFC 5321 section 4.1.2 mailbox: a dot-atom or quoted local part, a host name or an address literal.
const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]"
const LOCAL = `(?:${ATEXT}+(?:\\.${ATEXT}+)*|"(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\[\\x20-\\x7E])*")`
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
const EMAIL = new RegExp(`^${LOCAL}@(?:${LABEL}(?:\\.${LABEL})*|\\[(?:${IPV4}|IPv6:(?:${IPV6}))\\])$`)

const REPO_NWO = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0
  return day <= days
}

function isDate(value: string): boolean {
  const found = DATE.exec(value)
  return found !== null && validDate(Number(found[1]), Number(found[2]), Number(found[3]))
}

function isDateTime(value: string): boolean {
  const found = DATE_TIME.exec(value)
  if (!found || !isDate(found[1] ?? '')) return false
  const [hour, minute, second] = [Number(found[2]), Number(found[3]), Number(found[4])]
  if (hour > 23 || minute > 59 || second > 60) return false
  if (found[5] !== undefined && (Number(found[5]) > 23 || Number(found[6]) > 59)) return false
  return true
}

/** What a string of `format` must be, when `value` is not; undefined when it is (or the format is unknown). */
export function stringFormatProblem(format: string, value: string): string | undefined {
  switch (format) {
    case 'uri':
      return URI.test(value) ? undefined : 'an RFC 3986 URI (absolute, reserved characters percent-encoded)'
    case 'uri-template':
      return URI_TEMPLATE.test(value) ? undefined : 'an RFC 6570 URI template'
    case 'date-time':
      return isDateTime(value) ? undefined : 'an RFC 3339 date-time'
    case 'date':
      return isDate(value) ? undefined : 'an RFC 3339 full-date'
    case 'email':
      return EMAIL.test(value) ? undefined : 'an RFC 5321 email address'
    case 'repo.nwo':
      return REPO_NWO.test(value) ? undefined : "a repository as 'owner/name'"
    default:
      return undefined
  }
}

const INT32 = 2 ** 31
const INT64 = 2n ** 63n

/** What a number of `format` must be, when `value` is not; undefined when it is (or the format is unknown). */
export function numberFormatProblem(format: string, value: number): string | undefined {
  switch (format) {
    case 'int32':
      return Number.isInteger(value) && value >= -INT32 && value < INT32 ? undefined : 'a 32-bit integer'
    case 'int64':
    case 'timestamp':
      return Number.isInteger(value) && BigInt(value) >= -INT64 && BigInt(value) < INT64
        ? undefined
        : 'a 64-bit integer'
    case 'double':
      return Number.isFinite(value) ? undefined : 'a finite double'
    default:
      return undefined
  }
}

/** Every format this module checks (the rest are documentation only, e.g. `binary`). */
export const CHECKED_FORMATS = [
  'uri',
  'uri-template',
  'date-time',
  'date',
  'email',
  'repo.nwo',
  'int32',
  'int64',
  'timestamp',
  'double',
]
