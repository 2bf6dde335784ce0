import { fold } from 'tiny-dep'

/** A URL slug: folded, words joined by dashes; an empty title gives `untitled`. */
export function slug(text) {
  const words = fold(text)
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
  if (words.length == 0) return 'untitled'
  return words.join('-')
}
