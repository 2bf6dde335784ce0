// A GitHub repository's web address from a git remote URL, so `status --all --remote` can link each
// loop's last run; any other remote gives none (the run's id alone is shown).
import { describe, expect, it } from 'vitest'
import { repositoryWebUrl } from '../../../src/domain/remote-url.js'

describe('repositoryWebUrl', () => {
  it.each<[string, string | null]>([
    ['https://github.com/acme/demo.git', 'https://github.com/acme/demo'],
    ['https://github.com/acme/demo', 'https://github.com/acme/demo'],
    ['https://github.com/acme/demo/', 'https://github.com/acme/demo'],
    ['https://x-access-token:ghs_secret@github.com/acme/demo.git', 'https://github.com/acme/demo'],
    ['https://***@github.com/acme/demo.git', 'https://github.com/acme/demo'],
    ['https://GHE.Example.com/team/service.git', 'https://ghe.example.com/team/service'],
    ['https://ghe.example.com:8443/team/service.git', 'https://ghe.example.com:8443/team/service'],
    ['http://127.0.0.1:4567/acme/demo.git', 'http://127.0.0.1:4567/acme/demo'],
    ['git@github.com:acme/demo.git', 'https://github.com/acme/demo'],
    ['ssh://git@ghe.example.com:2222/team/service.git', 'https://ghe.example.com/team/service'],
    ['/srv/git/demo.git', null],
    ['../remote.git', null],
    ['file:///srv/git/acme/demo.git', null],
    ['https://github.com/acme/demo/extra.git', null],
    ['https://github.com/acme', null],
    ['https://github.com/acme/..', null],
    ['ext::sh -c touch% /tmp/x', null],
    ['https://github.com/acme/de mo.git', null],
  ])('%s → %s', (remote, want) => {
    expect(repositoryWebUrl(remote)).toBe(want)
  })
})
