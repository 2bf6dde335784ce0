/**
 * Which comments are the controller's own, so that a marker pasted into someone else's comment never
 * makes the loop edit or trust that comment.
 *
 * The controller's login is known exactly when its token may ask `GET /user` (a personal token), or
 * once a comment it created shows its author. An installation token (the job's GITHUB_TOKEN, a GitHub
 * App's token) may not ask; it posts as its app's bot (`github-actions[bot]`, `<app-slug>[bot]`, of
 * type `Bot`), and no person can post as a Bot: without the exact login, a Bot author is required.
 */

export interface CommentAuthor {
  login: string
  /** `User`, `Bot` or `Organization`, as the API reports it. */
  type: string
}

/** `login` is the controller's exact login, or null when its token cannot say (an installation token). */
export function isOwnComment(author: CommentAuthor | null | undefined, login: string | null): boolean {
  if (!author) return false
  if (login !== null) return author.login.toLowerCase() === login.toLowerCase()
  return author.type === 'Bot' && author.login.endsWith('[bot]')
}
