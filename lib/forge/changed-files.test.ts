import { CHANGED_FILES_LIMIT, changesOf } from '../contract/index.js';
import { branchPush, branchUpdate } from '../../test/fixtures/webhooks/examples.js';
import { compareChanges, pullRequestChanges, pushChangeQuery, type PushChange } from './changed-files.js';

const BEFORE = 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e';
const AFTER = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
const many = (n: number, prefix = 'f') => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(5, '0')}`);

describe('pushChangeQuery', () => {
  it("unions every commit's added, modified and removed paths of a real push, once each", () => {
    expect(pushChangeQuery(branchUpdate() as unknown as PushChange)).toEqual({
      kind: 'known',
      changes: { known: true, files: ['README.md', 'docs/guide.md', 'src/app.ts', 'src/old.ts'] },
    });
  });

  it('does not know the files of a new branch (GitHub\'s own example is one)', () => {
    expect(pushChangeQuery(branchPush() as unknown as PushChange)).toEqual({
      kind: 'known',
      changes: { known: false, why: expect.stringMatching(/created the branch/) },
    });
  });

  it.each<[string, Partial<PushChange>, unknown]>([
    ['an all-zero before', { before: '0'.repeat(40), created: false }, { kind: 'known', changes: { known: false, why: expect.stringMatching(/created the branch/) } }],
    ['a forced push', { forced: true }, { kind: 'known', changes: { known: false, why: expect.stringMatching(/forced/) } }],
    ['no commits', { commits: [] }, { kind: 'compare', base: BEFORE, head: AFTER, why: 'the push payload lists no commits' }],
    ['a commit list that may be cut', { commits: Array.from({ length: 2048 }, () => ({ added: ['a'] })) }, { kind: 'compare', base: BEFORE, head: AFTER, why: expect.stringMatching(/2048 commits/) }],
    ['commits without file lists', { commits: [{}] }, { kind: 'known', changes: { known: true, files: [] } }],
    ['more files than an input holds', { commits: [{ added: many(CHANGED_FILES_LIMIT + 1) }] }, { kind: 'known', changes: { known: false, why: expect.stringMatching(/1001 files, more than the 1000/) } }],
  ])('%s', (_what, overrides, expected) => {
    expect(pushChangeQuery({ before: BEFORE, after: AFTER, created: false, forced: false, commits: [{ added: ['x'] }], ...overrides })).toEqual(expected);
  });
});

describe('the files APIs\' answers', () => {
  it('counts both names of a rename', () => {
    expect(compareChanges([{ filename: 'src/new.ts', previous_filename: 'src/old.ts' }, { filename: 'a.md' }])).toEqual({ known: true, files: ['a.md', 'src/new.ts', 'src/old.ts'] });
    expect(pullRequestChanges([{ filename: 'lib/b.ts', previous_filename: 'lib/a.ts' }])).toEqual({ known: true, files: ['lib/a.ts', 'lib/b.ts'] });
  });

  it('does not know a comparison that lists 300 files: the API lists no more', () => {
    expect(compareChanges(many(299).map((filename) => ({ filename })))).toMatchObject({ known: true });
    expect(compareChanges(many(300).map((filename) => ({ filename })))).toEqual({ known: false, why: expect.stringMatching(/at most 300 files/) });
  });

  it('does not know a pull request past the limits', () => {
    expect(pullRequestChanges(many(3000).map((filename) => ({ filename })))).toEqual({ known: false, why: expect.stringMatching(/at most 3000 files/) });
    // 600 renames are 1200 paths.
    expect(pullRequestChanges(many(600).map((filename) => ({ filename, previous_filename: `old/${filename}` })))).toEqual({ known: false, why: expect.stringMatching(/1200 files/) });
  });

  it('keeps the limit exactly', () => {
    expect(changesOf(many(CHANGED_FILES_LIMIT))).toMatchObject({ known: true });
    expect(changesOf(['b', 'a', 'b'])).toEqual({ known: true, files: ['a', 'b'] });
  });
});
