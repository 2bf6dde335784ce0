// Which failed commits are another process committing in the same work tree at the same time (the
// checkpoint then ends superseded), and which are faults.
import { describe, expect, it } from 'vitest'
import { isConcurrentCommit } from '../../../src/domain/git-errors.js'

describe('isConcurrentCommit', () => {
  it.each([
    {
      name: 'HEAD moved between our read and our commit',
      stderr: "fatal: cannot lock ref 'HEAD': is at 1a2b3c4d but expected 5e6f7a8b",
      message: 'loop(race): iteration 1 IMPLEMENT',
      concurrent: true,
    },
    {
      name: "the other commit's COMMIT_EDITMSG read half-written: ours aborted as empty",
      stderr: 'Aborting commit due to empty commit message.',
      message: 'loop(race): iteration 1 IMPLEMENT\n\nLoop-Id: race',
      concurrent: true,
    },
    {
      name: 'an empty message given: a fault of ours, not a race',
      stderr: 'Aborting commit due to empty commit message.',
      message: '  \n',
      concurrent: false,
    },
    {
      name: 'any other failure',
      stderr: 'fatal: unable to write new index file',
      message: 'loop(race): iteration 1 IMPLEMENT',
      concurrent: false,
    },
  ])('$name', ({ stderr, message, concurrent }) => {
    expect(isConcurrentCommit(stderr, message)).toBe(concurrent)
  })
})
