// A page that shows a report the way GitHub does: Markdown through a GFM renderer, GitHub's own
// stylesheet (github-markdown-css), and each ```mermaid block drawn by the real mermaid library.
// Everything is loaded from node_modules by file: the page never reaches the network.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Marked } from 'marked'

const require = createRequire(import.meta.url)

/** Debian's `chromium` (or `CHROMIUM_PATH`); null when none is installed. */
export function chromiumPath(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    (path): path is string => typeof path === 'string' && path !== '',
  )
  return candidates.find((path) => existsSync(path)) ?? null
}

export const mermaidScript = require.resolve('mermaid/dist/mermaid.min.js')
const githubCss = readFileSync(
  join(dirname(require.resolve('github-markdown-css/package.json')), 'github-markdown-light.css'),
  'utf8',
)

const marked = new Marked({ gfm: true, breaks: false })
// GitHub draws a ```mermaid block as a diagram; other blocks stay code.
marked.use({
  renderer: {
    code({ text, lang }) {
      if (lang === 'mermaid') return `<pre class="mermaid">${escapeHtml(text)}</pre>\n`
      return false
    },
  },
})

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** The report as a whole HTML page; `comment` frames it like an issue comment, else like a job summary. */
export function pageOf(markdown: string, frame: 'comment' | 'summary'): string {
  // The hidden marker is an HTML comment in both GitHub and here.
  const body = marked.parse(markdown, { async: false })
  const border = frame === 'comment' ? 'border:1px solid #d1d9e0;border-radius:6px;' : ''
  return `<!doctype html><html><head><meta charset="utf-8"><style>${githubCss}
body{background:#fff;margin:0;padding:16px;width:880px}
.frame{${border}padding:16px 24px}
.markdown-body pre.mermaid{background:#fff;text-align:center}
</style></head><body><div class="frame"><article class="markdown-body">${body}</article></div></body></html>`
}
