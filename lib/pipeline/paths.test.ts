import { parsePipeline } from './parse.js';
import { InvalidPipeline } from './errors.js';
import { changesOf } from '../contract/index.js';
import { pathGlobProblem, pathMatches, pathsSkipReason } from './paths.js';

describe('path globs against repository paths', () => {
  test.each([
    ['services/api/**', 'services/api/src/main.go', true],
    ['services/api/**', 'services/api', false],
    ['services/api/**', 'services/web/src/main.ts', false],
    ['services/*/src/*.go', 'services/api/src/main.go', true],
    ['services/*/src/*.go', 'services/api/src/cmd/main.go', false],
    ['services/**/*.go', 'services/api/src/cmd/main.go', true],
    ['**/*.go', 'main.go', false],
    ['**.go', 'main.go', true],
    ['*.md', 'README.md', true],
    ['*.md', 'docs/README.md', false],
    ['docs/**', 'docs/README.md', true],
    ['**/README.md', 'docs/README.md', true],
    ['.github/workflows/*.yml', '.github/workflows/ci.yml', true],
    // Dotfiles are files like any other: `*` and `**` match them (unlike a shell's globs).
    ['*', '.gitignore', true],
    ['**', '.github/workflows/ci.yml', true],
    ['src/**', 'src/.env.example', true],
    ['v?.txt', 'v1.txt', true],
    ['v?.txt', 'v/.txt', false],
    ['a+b.txt', 'a+b.txt', true],
    ['a.txt', 'aXtxt', false],
    ['Docs/**', 'docs/README.md', false],
  ])('%j matches %j: %s', (glob, file, matches) => {
    expect(pathMatches(glob, file)).toBe(matches);
  });
});

describe('globs that can never match a repository path', () => {
  test.each([
    ['src/**', undefined],
    ['.github/**', undefined],
    ['**', undefined],
    ['', 'a path glob must not be empty'],
    ['  ', 'a path glob must not be empty'],
    ['/src/**', '"/src/**" is absolute: repository paths have no leading "/" (write "src/**")'],
    ['src/../lib/**', '"src/../lib/**" has a ".." segment: repository paths never leave the repository, nor go up'],
    ['../x', '"../x" has a ".." segment: repository paths never leave the repository, nor go up'],
    ['src\\main.go', '"src\\main.go" has a backslash: repository paths are separated by "/", and a backslash matches nothing'],
    ['./src/**', '"./src/**" has a "." segment, which no repository path has (write "src/**")'],
    ['docs/', '"docs/" ends with "/": it names a folder, and only files change (write "docs/**" for everything under it)'],
    ['src//x', '"src//x" has an empty segment ("//"), which no repository path has'],
    ['!docs/**', '"!docs/**" starts with "!": negated globs are not supported; list the files to leave out under paths-ignore instead'],
  ])('%j: %j', (glob, problem) => {
    expect(pathGlobProblem(glob)).toBe(problem);
  });
});

describe('whether a change runs a step', () => {
  const known = (...files: string[]) => ({ known: true as const, files });
  test.each([
    // paths: one matching file is enough.
    [{ paths: ['services/api/**'] }, known('services/api/src/main.go', 'docs/README.md'), undefined],
    [{ paths: ['services/api/**'] }, known('docs/README.md'), 'when.paths: no changed file matches services/api/**'],
    [{ paths: ['services/api/**', 'go.mod'] }, known('go.mod'), undefined],
    [{ paths: ['services/api/**', 'go.mod'] }, known('services/web/index.ts'), 'when.paths: no changed file matches services/api/**, go.mod'],
    // A deleted file is a changed file: removing the last source file still builds.
    [{ paths: ['src/**'] }, known('src/removed.ts'), undefined],
    // paths-ignore: any file outside the globs runs the step.
    [{ pathsIgnore: ['docs/**', '*.md'] }, known('docs/guide.md', 'README.md'), 'when.paths-ignore: every changed file matches docs/**, *.md'],
    [{ pathsIgnore: ['docs/**', '*.md'] }, known('docs/guide.md', 'src/main.ts'), undefined],
    [{ pathsIgnore: ['docs/**'] }, known('.github/workflows/ci.yml'), undefined],
    // No file at all (an empty commit): nothing matches paths, and every file (none) matches paths-ignore.
    [{ paths: ['src/**'] }, known(), 'when.paths: the change touches no file'],
    [{ pathsIgnore: ['docs/**'] }, known(), 'when.paths-ignore: the change touches no file'],
    // A change not known, or none given: nothing is skipped by paths.
    [{ paths: ['src/**'] }, { known: false as const, why: 'a new branch' }, undefined],
    [{ pathsIgnore: ['docs/**'] }, undefined, undefined],
    [undefined, known('docs/x.md'), undefined],
    [{}, known('docs/x.md'), undefined],
  ])('%j for %j: %j', (filter, changes, reason) => {
    expect(pathsSkipReason(filter, changes)).toBe(reason);
  });

  test('the pipeline\'s filter says whose it is', () => {
    expect(pathsSkipReason({ paths: ['src/**'] }, known('docs/x.md'), "the pipeline's when")).toBe("the pipeline's when.paths: no changed file matches src/**");
  });
});

describe('a change as the build input holds it', () => {
  test.each([
    [['a', 'b', 'a'], 3, { known: true, files: ['a', 'b'] }],
    [['a', 'b', 'c'], 3, { known: true, files: ['a', 'b', 'c'] }],
    [['a', 'b', 'c', 'd'], 3, { known: false, why: "the change touches 4 files, more than the 3 a build's input holds" }],
    [[], 3, { known: true, files: [] }],
  ])('%j with a limit of %d: %j', (files, limit, changes) => {
    expect(changesOf(files, limit)).toEqual(changes);
  });
});

describe('paths and paths-ignore in a pipeline file', () => {
  const file = (top: string, when: string) =>
    `version: 1\ncheckout: false\n${top}steps:\n  - name: build\n    image: alpine:3.20\n    commands: [echo hi]\n${when}`;
  const problem = (text: string) => {
    try {
      parsePipeline(text, 'ci.yml');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidPipeline);
      return (error as Error).message;
    }
    throw new Error('the pipeline was accepted');
  };

  test('a step\'s and the pipeline\'s lists are kept; one glob is a list of one', () => {
    const pipeline = parsePipeline(file('when:\n  paths-ignore: ["docs/**", "*.md"]\n', '    when:\n      paths: services/api/**\n      branch: main\n'), 'ci.yml');
    expect(pipeline.when).toEqual({ pathsIgnore: ['docs/**', '*.md'] });
    expect(pipeline.steps[0]!.when).toEqual({ paths: ['services/api/**'], branch: ['main'] });
  });

  test('without a top-level when, the pipeline has none', () => {
    expect(parsePipeline(file('', ''), 'ci.yml').when).toBeUndefined();
  });

  test.each([
    ['', '    when:\n      paths: ["/src/**"]\n', 'ci.yml line 8: step "build": when.paths[0]: "/src/**" is absolute: repository paths have no leading "/" (write "src/**")'],
    ['', '    when:\n      paths: [src/**, "../lib/**"]\n', 'ci.yml line 8: step "build": when.paths[1]: "../lib/**" has a ".." segment: repository paths never leave the repository, nor go up'],
    ['', '    when:\n      paths: [""]\n', 'ci.yml line 8: step "build": when.paths[0]: a path glob must not be empty'],
    ['', '    when:\n      paths-ignore: ["docs\\\\x.md"]\n', 'ci.yml line 8: step "build": when.paths-ignore[0]: "docs\\x.md" has a backslash: repository paths are separated by "/", and a backslash matches nothing'],
    ['', '    when:\n      paths: []\n', 'ci.yml line 8: step "build": when.paths: must list at least one path (the step runs when a changed file matches one)'],
    ['', '    when:\n      paths: [3]\n', 'ci.yml line 8: step "build": when.paths[0]: each path must be text (a file path or a glob such as "src/**"), not the number 3'],
    ['', '    when:\n      paths: [src/**]\n      paths-ignore: [docs/**]\n', 'ci.yml line 9: step "build": when.paths-ignore: goes with paths on the same when: use one or the other (paths: the files that make it run; paths-ignore: the files that alone do not)'],
    ['when:\n  paths-ignore: []\n', '', 'ci.yml line 4: when.paths-ignore: must list at least one path (the step runs unless every changed file matches one)'],
    ['when:\n  paths: ["/x"]\n', '', 'ci.yml line 4: when.paths[0]: "/x" is absolute: repository paths have no leading "/" (write "x")'],
    ['when:\n  paths: [a]\n  paths-ignore: [b]\n', '', 'ci.yml line 5: when.paths-ignore: goes with paths on the same when: use one or the other (paths: the files that make it run; paths-ignore: the files that alone do not)'],
    // The pipeline's when holds paths only: branches and events are each step's.
    ['when:\n  branch: [main]\n', '', 'ci.yml line 4: unknown field "branch" (expected one of: paths, paths-ignore)'],
    ['when:\n  path: [src/**]\n', '', 'ci.yml line 4: unknown field "path" (did you mean "paths"?)'],
    ['when: src/**\n', '', 'ci.yml line 3: when: must be a map with paths or paths-ignore, not the text "src/**"'],
  ])('%j %j is refused', (top, when, message) => {
    expect(problem(file(top, when))).toBe(message);
  });
});
