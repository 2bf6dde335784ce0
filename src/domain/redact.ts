/**
 * Redaction of secrets from every line that leaves the runner, and defusing of
 * workflow commands in text that is echoed to the log. Pure: no I/O.
 */

/** What a token-shaped string is replaced with: the kind is kept so a reader knows what was there. */
export function redactionLabel(kind: string): string {
  return `[redacted:${kind}]`
}

/** What a known secret is replaced with (the same mask GitHub uses). */
export const SECRET_MASK = '***'

/** Secrets shorter than this are not redacted by value: masking `1` or `true` would wreck every text. */
export const MIN_SECRET_LENGTH = 4

/**
 * Token shapes as data, so a new shape is one entry. `keep` is the number of leading capture groups kept
 * verbatim (a prefix such as `Authorization: Bearer `). Every regex is linear: no nested quantifiers.
 */
export const TOKEN_SHAPES: ReadonlyArray<{ kind: string; regex: RegExp; keep?: number }> = [
  {
    kind: 'private-key',
    regex: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g,
  },
  // A key block cut short (e.g. by output trimming): everything after its start is withheld.
  { kind: 'private-key', regex: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*$/g },
  { kind: 'github-token', regex: /\bgh[pousr]_[A-Za-z0-9]{30,255}\b/g },
  { kind: 'github-token', regex: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { kind: 'npm-token', regex: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'aws-access-key-id', regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  {
    kind: 'aws-secret-access-key',
    regex: /(aws_secret_access_key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/gi,
    keep: 1,
  },
  { kind: 'anthropic-key', regex: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai-key', regex: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack-token', regex: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g },
  { kind: 'jwt', regex: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g },
  { kind: 'authorization', regex: /(\bAuthorization\s*:\s*(?:Bearer|token|Basic)\s+)[^\s'"]+/gi, keep: 1 },
  { kind: 'bearer-token', regex: /(\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*/g, keep: 1 },
  // Credentials in a URL: https://user:password@host
  { kind: 'url-credentials', regex: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi, keep: 1 },
]

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The forms a secret may take in output: as is, base64 (three alignments), URL-encoded, JSON-escaped. */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret])
  const bytes = new TextEncoder().encode(secret)
  // A secret inside a longer base64 text starts at one of three byte offsets within a 3-byte group.
  // The groups made only of the secret's bytes encode the same way whatever surrounds them, so that
  // middle part identifies the secret: skip the first group (shared with the bytes before) and the
  // last partial one (shared with the bytes after).
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length)
    padded.set(bytes, offset)
    const encoded = toBase64(padded)
    const start = offset === 0 ? 0 : 4
    const end = Math.floor((offset + bytes.length) / 3) * 4
    const core = encoded.slice(start, end)
    if (core.length >= 8) forms.add(core)
  }
  forms.add(toBase64(bytes).replace(/=+$/, ''))
  forms.add(encodeURIComponent(secret))
  forms.add(JSON.stringify(secret).slice(1, -1))
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH)
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

function toBase64(bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0
    const b = bytes[i + 1] ?? 0
    const c = bytes[i + 2] ?? 0
    const triple = (a << 16) | (b << 8) | c
    out += BASE64_ALPHABET[(triple >> 18) & 63]
    out += BASE64_ALPHABET[(triple >> 12) & 63]
    out += i + 1 < bytes.length ? BASE64_ALPHABET[(triple >> 6) & 63] : '='
    out += i + 2 < bytes.length ? BASE64_ALPHABET[triple & 63] : '='
  }
  return out
}

/**
 * Returns a function that removes the known `secrets` (in every form `secretForms` lists) and every
 * token-shaped string from a text. Known secrets go first, so a secret that also has a token shape is
 * masked as a secret.
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const forms = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap(secretForms))]
    // Longest first, so a secret that contains another is masked whole.
    .sort((a, b) => b.length - a.length)
  const secretRegex = forms.length > 0 ? new RegExp(forms.map(escapeRegExp).join('|'), 'g') : null
  return (text: string): string => {
    let out = secretRegex ? text.replace(secretRegex, SECRET_MASK) : text
    for (const shape of TOKEN_SHAPES) {
      const label = redactionLabel(shape.kind)
      out = out.replace(shape.regex, (...args: unknown[]) => {
        const kept = shape.keep ? (args.slice(1, 1 + shape.keep) as string[]).join('') : ''
        return kept + label
      })
    }
    return out
  }
}

/** The zero-width space that breaks a workflow command without changing how the line reads. */
export const ZERO_WIDTH_SPACE = '\u200b'

/**
 * Defuses workflow commands (`::set-output`, `::add-mask::`, `::stop-commands::`, the old `##[...]`
 * form) at the start of any line, so text from a check or an agent cannot steer the runner when it is
 * echoed to the log.
 */
export function neutraliseWorkflowCommands(text: string): string {
  return text
    .replace(/^([ \t]*):(?=:)/gm, `$1:${ZERO_WIDTH_SPACE}`)
    .replace(/^([ \t]*)#(?=#\[)/gm, `$1#${ZERO_WIDTH_SPACE}`)
}
