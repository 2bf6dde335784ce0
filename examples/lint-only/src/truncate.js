/** Cuts a slug to at most `max` characters, never in the middle of a word. */
export function truncate(slugText, max) {
    if (slugText.length <= max) return slugText;
    const cut = slugText.slice(0, max + 1);
    const end = cut.lastIndexOf("-");
    return end > 0 ? cut.slice(0, end) : slugText.slice(0, max);
}
