// GitHub refuses a push by a GitHub App's installation token (a job's GITHUB_TOKEN) that creates,
// changes or deletes a file under `.github/workflows/`: "refusing to allow a GitHub App to create or
// update workflow `.github/workflows/x.yml` without `workflows` permission". A person's token (a PAT with
// the `workflow` scope, as a loop's `push-token` is) may. The remote's pre-receive hook plays it.

/** The header the git front hands the backend: the pushing token's kind (`installation` or `user`). */
export const TOKEN_KIND_HEADER = 'x-sandbox-token-kind'

/** Inside a bare repository: while it exists, every push is declined with its content (`rejectPushes`). */
export const REJECT_REASON_FILE = 'sandbox-reject-pushes'

/**
 * The pre-receive hook (POSIX sh): declines every push while the reason file exists, then, for an
 * installation token, every push whose new commits touch `.github/workflows/`, naming the first file.
 */
export const PRE_RECEIVE_HOOK = `#!/bin/sh
if [ -f "${REJECT_REASON_FILE}" ]; then cat "${REJECT_REASON_FILE}" >&2; exit 1; fi
[ "$SANDBOX_TOKEN_KIND" = installation ] || exit 0
zero=0000000000000000000000000000000000000000
while read -r old new ref; do
  [ "$new" = "$zero" ] && continue
  for commit in $(git rev-list "$new" --not --all); do
    file=$(git diff-tree --root --no-commit-id --name-only -r "$commit" -- .github/workflows | head -n 1)
    if [ -n "$file" ]; then
      echo "refusing to allow a GitHub App to create or update workflow \\\`$file\\\` without \\\`workflows\\\` permission" >&2
      exit 1
    fi
  done
done
exit 0
`
