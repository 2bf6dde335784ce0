// GitHub's page-number pagination of lists: `per_page` (default 30, at most 100), `page` (from 1), and a
// `Link` header with absolute URLs, `rel="prev"`, `"next"`, `"last"`, `"first"` in GitHub's order,
// each present only where it leads somewhere.

const DEFAULT_PER_PAGE = 30
const MAX_PER_PAGE = 100

/** One page of `items` as `url` (the request's absolute URL) asks for, with its `Link` header. */
export function paginate<T>(items: readonly T[], url: URL): { page: T[]; headers: Record<string, string> } {
  const asked = Number(url.searchParams.get('per_page') ?? DEFAULT_PER_PAGE)
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Number.isInteger(asked) ? asked : DEFAULT_PER_PAGE))
  const askedPage = Number(url.searchParams.get('page') ?? 1)
  const pageNumber = Math.max(1, Number.isInteger(askedPage) ? askedPage : 1)
  const last = Math.max(1, Math.ceil(items.length / perPage))
  const page = items.slice((pageNumber - 1) * perPage, pageNumber * perPage)
  const link = (n: number, rel: string) => {
    const target = new URL(url)
    target.searchParams.set('per_page', String(perPage))
    target.searchParams.set('page', String(n))
    return `<${target.toString()}>; rel="${rel}"`
  }
  const links: string[] = []
  if (pageNumber > 1) links.push(link(Math.min(pageNumber - 1, last), 'prev'))
  if (pageNumber < last) links.push(link(pageNumber + 1, 'next'), link(last, 'last'))
  if (pageNumber > 1) links.push(link(1, 'first'))
  return { page, headers: links.length > 0 ? { link: links.join(', ') } : {} }
}
