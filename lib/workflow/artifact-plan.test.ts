/** Where a step's artifacts go and what their objects are called: table tests of the pure rules. */
import { artifactExpiryClass, artifactFolder, artifactManifestKey, artifactObjectName, artifactObjects, parseArtifactManifest } from './artifact-plan.js';

describe('the lifecycle class of an artifact', () => {
  it.each([
    [1, 1],
    [2, 7],
    [7, 7],
    [14, 30],
    [30, 30],
    [31, 90],
    [90, 90],
    [91, 365],
    [365, 365],
  ])('keeps expire-in %i days in the %i-day class', (days, kept) => {
    expect(artifactExpiryClass(days)).toBe(kept);
  });
});

describe('the objects of a step\'s artifacts', () => {
  const place = { expireInDays: 14, repository: 'acme/web', buildId: 'gh-123-abc', step: 'build' };

  it('puts them under the class, the repository, the build and the step, each encoded', () => {
    expect(artifactFolder(place)).toBe('artifacts/30d/acme%2Fweb/gh-123-abc/build/');
    expect(artifactFolder({ ...place, repository: undefined, buildId: 'local/../x' })).toBe('artifacts/30d/local/local%2F..%2Fx/build/');
    expect(artifactFolder({ ...place, buildId: '..' })).toBe('artifacts/30d/acme%2Fweb/%2E%2E/build/');
    expect(artifactManifestKey(place)).toBe('artifacts/30d/acme%2Fweb/gh-123-abc/build/manifest.json');
  });

  it.each([
    [0, 'dist/', true, '0-dist.tar.gz'],
    [1, 'coverage/lcov.info', false, '1-coverage_lcov.info'],
    [2, 'reports/junit results/', true, '2-reports_junit_results.tar.gz'],
    [3, '.cache/x', false, '3-_cache_x'],
    [4, 'a//b', false, '4-a_b'],
  ])('names path %i %s (folder %s) %s', (index, path, folder, name) => {
    expect(artifactObjectName(index, path, folder)).toBe(name);
  });

  it('gives a path that names a folder its tar.gz only, and any other path both forms', () => {
    expect(artifactObjects(place, 0, 'dist/')).toEqual({ folder: 'artifacts/30d/acme%2Fweb/gh-123-abc/build/0-dist.tar.gz' });
    expect(artifactObjects(place, 1, 'report')).toEqual({
      file: 'artifacts/30d/acme%2Fweb/gh-123-abc/build/1-report',
      folder: 'artifacts/30d/acme%2Fweb/gh-123-abc/build/1-report.tar.gz',
    });
  });
});

describe('the manifest as read back', () => {
  const sha = 'a'.repeat(64);
  it.each([
    ['a manifest', { artifacts: [{ path: 'dist/', object: 'o', size: 3, sha256: sha }], missing: ['x'] }, { artifacts: [{ path: 'dist/', object: 'o', size: 3, sha256: sha }], missing: ['x'] }],
    ['one without its missing list', { artifacts: [] }, { artifacts: [], missing: [] }],
    ['a list that is not one', { artifacts: {} }, undefined],
    ['an entry without its sha256', { artifacts: [{ path: 'dist/', object: 'o', size: 3 }] }, undefined],
    ['a sha256 that is not hex', { artifacts: [{ path: 'dist/', object: 'o', size: 3, sha256: 'xyz' }] }, undefined],
    ['null', null, undefined],
  ])('reads %s', (_what, value, parsed) => {
    expect(parseArtifactManifest(value)).toEqual(parsed);
  });
});
