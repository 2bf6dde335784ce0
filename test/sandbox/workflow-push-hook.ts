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
 * installation token, every push that leaves a ref with other `.github/workflows/` files than before,
 * naming the first. Each ref is compared as a whole, old tip to new, so a merge that brings a workflow
 * change from a branch the remote holds already counts (its commits are not new, and a merge commit's
 * own diff lists nothing). A new ref is compared with where it leaves the default branch (their merge
 * base), so a branch cut from the default branch with no workflow change of its own passes, and with the
 * empty tree when it shares no history with it.
 */
export const PRE_RECEIVE_HOOK = `#!/bin/sh
if [ -f "${REJECT_REASON_FILE}" ]; then cat "${REJECT_REASON_FILE}" >&2; exit 1; fi
[ "$SANDBOX_TOKEN_KIND" = installation ] || exit 0
zero=0000000000000000000000000000000000000000
empty_tree=$(git hash-object -t tree /dev/null)
default_branch=$(git symbolic-ref -q HEAD)
while read -r old new ref; do
  [ "$new" = "$zero" ] && continue
  if [ "$old" = "$zero" ]; then
    base=$(git merge-base "$default_branch" "$new" 2>/dev/null) || base=$empty_tree
  else
    base=$old
  fi
  file=$(git diff --name-only "$base" "$new" -- .github/workflows | head -n 1)
  if [ -n "$file" ]; then
    echo "refusing to allow a GitHub App to create or update workflow \\\`$file\\\` without \\\`workflows\\\` permission" >&2
    exit 1
  fi
done
exit 0
`
