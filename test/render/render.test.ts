// The reports of every end state, looked at the way a person sees them on GitHub: each golden summary
// and comment turned into HTML by a GFM renderer with GitHub's stylesheet, in headless Chromium, with
// each diagram drawn by the real mermaid library. Fails on any mermaid error, console error or page
// error, and on hostile output that became markup; writes a PNG of each (UPDATE_GOLDEN=1 also
// refreshes the COMPLETE and BLOCKED images that the README and docs/ show).
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import puppeteer, { type Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderComment, renderSummary } from '../../src/domain/report/index.js'
import { endStates } from '../golden/end-states.js'
import { chromiumPath, mermaidScript, pageOf } from './page.js'

/** The little of the page's DOM the checks read (the project's TypeScript has no DOM library). */
interface PageElement {
  textContent: string | null
  innerText: string
}
interface PageDocument {
  querySelectorAll(selector: string): ArrayLike<PageElement>
  querySelector(selector: string): PageElement | null
}

const chromium = chromiumPath()
if (!chromium) {
  console.warn(
    "test:render skipped: no Chromium found (install Debian's `chromium` with apt-get, or set CHROMIUM_PATH).",
  )
}

const out = process.env.RENDER_OUT ?? mkdtempSync(join(tmpdir(), 'loop-render-'))
const images = join(import.meta.dirname, '..', '..', 'docs', 'images')
const shownInDocs = new Set(['complete-comment', 'blocked-comment', 'blocked-summary'])

describe.skipIf(!chromium)('reports rendered as GitHub renders them', () => {
  let browser: Browser
  beforeAll(async () => {
    mkdirSync(out, { recursive: true })
    browser = await puppeteer.launch({
      executablePath: chromium as string,
      headless: true,
      // The sandbox needs user namespaces that containers and CI runners often lack; the page is ours.
      args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'],
    })
  })
  afterAll(async () => {
    await browser?.close()
    console.info(`test:render: PNGs in ${out}`)
  })

  const cases = endStates().flatMap(({ name, model }) => [
    { name: `${name}-summary`, frame: 'summary' as const, markdown: renderSummary(model) },
    { name: `${name}-comment`, frame: 'comment' as const, markdown: renderComment(model, { postedOn: 42 }) },
  ])

  it.each(cases)('$name', async ({ name, frame, markdown }) => {
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`page: ${(error as Error).message}`))
    // Nothing may leave the page: a hostile image or link that became markup would try.
    await page.setRequestInterception(true)
    page.on('request', (request) => {
      if (request.url().startsWith('data:') || request.url() === 'about:blank') return void request.continue()
      problems.push(`request: ${request.url()}`)
      void request.abort()
    })
    await page.setViewport({ width: 912, height: 600, deviceScaleFactor: 1 })
    await page.setContent(pageOf(markdown, frame), { waitUntil: 'load' })
    await page.addScriptTag({ path: mermaidScript })
    const diagrams = await page.evaluate(async () => {
      const { mermaid, document } = globalThis as unknown as { mermaid: MermaidApi; document: PageDocument }
      mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'default' })
      const blocks = Array.from(document.querySelectorAll('pre.mermaid'))
      const errors: string[] = []
      for (const block of blocks) {
        try {
          await mermaid.parse(block.textContent ?? '')
        } catch (error) {
          errors.push(String((error as Error).message ?? error))
        }
      }
      await mermaid.run({ querySelector: 'pre.mermaid' }).catch((error: Error) => errors.push(error.message))
      return { count: blocks.length, svgs: document.querySelectorAll('pre.mermaid svg').length, errors }
      interface MermaidApi {
        initialize(config: object): void
        parse(text: string): Promise<unknown>
        run(options: { querySelector: string }): Promise<void>
      }
    })
    // Hostile output stays text: no script, image, heading or javascript: link came from a report.
    const markup = await page.evaluate(() => {
      const { document } = globalThis as unknown as { document: PageDocument }
      return {
        scripts: document.querySelectorAll('article script').length,
        images: document.querySelectorAll('article img').length,
        headings: Array.from(document.querySelectorAll('article h1')).map((h) => h.textContent),
        scriptLinks: document.querySelectorAll('article a[href^="javascript:"]').length,
        openDetails: document.querySelectorAll('article details[open]').length,
        // biome-ignore lint/performance/useDomNodeTextContent: the text as laid out is what a person reads
        text: document.querySelector('article')?.innerText ?? '',
      }
    })
    const png = join(out, `${name}.png`)
    const frameElement = await page.$('.frame')
    await (frameElement ?? page).screenshot({ path: png })
    await page.close()
    if (process.env.UPDATE_GOLDEN === '1' && shownInDocs.has(name)) {
      mkdirSync(images, { recursive: true })
      copyFileSync(png, join(images, `${name}.png`))
    }
    writeFileSync(join(out, `${name}.md`), markdown)

    expect(problems, `${name}: console, page or network errors`).toEqual([])
    expect(diagrams.errors, `${name}: mermaid errors`).toEqual([])
    expect(diagrams.count, `${name}: one diagram`).toBe(1)
    expect(diagrams.svgs, `${name}: the diagram is drawn`).toBe(1)
    expect(markup).toMatchObject({ scripts: 0, images: 0, headings: [], scriptLinks: 0, openDetails: 0 })
    // What a person reads carries no visible escapes.
    expect(markup.text).not.toMatch(/\\[`_*[\]|#!]/)
  })
})
