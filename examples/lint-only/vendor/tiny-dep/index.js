/** Lower-cases and strips accents: the one helper the slug library needs. */
export function fold(text) {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
}
