/**
 * Text from a command's output, made fit to show: what a person or an agent reads in the audit trail,
 * the state's excerpts and reports. Colour and cursor escapes, NUL bytes and other control characters
 * are removed once, where output is captured for display; the raw log on disk keeps every byte.
 */

/** Terminal escapes: colours and cursor moves (CSI), hyperlinks and titles (OSC), charset and mode switches. */
export const TERMINAL_ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escapes and control characters are what this removes
  /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[()][A-Z0-9]|\u001b[=>78cDEHMZ]/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters other than tab and newline
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f]/g
// `test` on a global regex moves `lastIndex`; it is reset before each use.

export function displayText(text: string): string {
  CONTROLS.lastIndex = 0
  if (!CONTROLS.test(text)) return text
  // A carriage return that ends a line is a Windows line end; one inside a line overwrote it (a progress bar).
  return text
    .replace(TERMINAL_ESCAPES, '')
    .replace(/\r+\n/g, '\n')
    .split('\n')
    .map((line) => line.slice(line.lastIndexOf('\r') + 1))
    .join('\n')
    .replace(CONTROLS, '')
}
