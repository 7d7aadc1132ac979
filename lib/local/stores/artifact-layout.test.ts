import { artifactObjects, artifactPlace } from '../../workflow/artifact-plan.js';
import { artifactObjectKind, buildArtifactsDir, fileArtifactTarget, objectKeyOf, sha256SumsText } from './artifact-layout.js';

const place = artifactPlace({ expireInDays: 30 }, { id: 'b1', repository: 'o/r' }, 'build');

describe('artifactObjectKind', () => {
  // The objects LaunchStep plans for each path (artifact-plan.ts), both of them, told apart.
  it.each([
    ['dist/', 0],
    ['dist', 1],
    ['coverage/lcov.info', 2],
    ['out.tar.gz', 3],
    ['out.tar.gz/', 12],
    ['1-weird name', 4],
  ])('tells the file object of %s from its folder tar.gz', (artifactPath, index) => {
    const objects = artifactObjects(place, index, artifactPath);
    expect(artifactObjectKind(artifactPath, objects.folder)).toBe('folder');
    if (objects.file !== undefined) expect(artifactObjectKind(artifactPath, objects.file)).toBe('file');
  });

  it('knows no object named for another path', () => {
    expect(artifactObjectKind('dist/', artifactObjects(place, 0, 'lib/').folder)).toBeUndefined();
    expect(artifactObjectKind('a.txt', artifactObjects(place, 0, 'b.txt').file!)).toBeUndefined();
  });
});

describe('where the files go', () => {
  it('takes keys of its own bucket only', () => {
    expect(objectKeyOf('s3://step-runner-local/artifacts/30d/x/0-a', 'step-runner-local')).toBe('artifacts/30d/x/0-a');
    expect(objectKeyOf('s3://other/artifacts/30d/x/0-a', 'step-runner-local')).toBeUndefined();
    expect(objectKeyOf('s3://step-runner-local/', 'step-runner-local')).toBeUndefined();
  });

  it('keeps every path and build id inside its folder', () => {
    expect(fileArtifactTarget('/a/b/build', 'coverage/lcov.info')).toBe('/a/b/build/coverage/lcov.info');
    expect(fileArtifactTarget('/a/b/build', '../../etc/passwd')).toBe('/a/b/build/etc/passwd');
    expect(buildArtifactsDir('/a', 'local-ci-20261206t030000-ab12')).toBe('/a/local-ci-20261206t030000-ab12');
    expect(buildArtifactsDir('/a', '../x/y')).toBe('/a/__x_y');
  });
});

describe('sha256SumsText', () => {
  const sum = 'ab'.repeat(32);
  it('writes what sha256sum -c reads: two spaces, and names with \\, newline or CR escaped behind a leading \\', () => {
    expect(sha256SumsText([
      { path: 'dist/app.js', size: 1, sha256: sum },
      { path: 'a\\b', size: 1, sha256: sum },
      { path: 'n\nl', size: 1, sha256: sum },
      { path: 'c\rr', size: 1, sha256: sum },
    ])).toBe(`${sum}  dist/app.js\n\\${sum}  a\\\\b\n\\${sum}  n\\nl\n\\${sum}  c\\rr\n`);
    expect(sha256SumsText([])).toBe('');
  });
});
