import { InvalidImage } from './errors.js';
import { checkImageReference, parseImageReference, type ImageReference } from './image-reference.js';

const digest = 'sha256:' + 'a1b2c3d4'.repeat(8);

describe('checkImageReference accepts real references and names their registry', () => {
  const good: [string, Omit<ImageReference, 'original'>][] = [
    ['alpine', { domain: 'docker.io', repository: 'library/alpine', familiar: 'docker.io/library/alpine:latest' }],
    ['alpine:3.20', { domain: 'docker.io', repository: 'library/alpine', tag: '3.20', familiar: 'docker.io/library/alpine:3.20' }],
    ['node:22-alpine', { domain: 'docker.io', repository: 'library/node', tag: '22-alpine', familiar: 'docker.io/library/node:22-alpine' }],
    ['bitnami/redis:7.2', { domain: 'docker.io', repository: 'bitnami/redis', tag: '7.2', familiar: 'docker.io/bitnami/redis:7.2' }],
    ['index.docker.io/library/busybox:1.37', { domain: 'docker.io', repository: 'library/busybox', tag: '1.37', familiar: 'docker.io/library/busybox:1.37' }],
    ['ghcr.io/org/team/app:v1.2.3', { domain: 'ghcr.io', repository: 'org/team/app', tag: 'v1.2.3', familiar: 'ghcr.io/org/team/app:v1.2.3' }],
    [
      'registry.example.com:5000/ci/builder:2024.01',
      { domain: 'registry.example.com:5000', repository: 'ci/builder', tag: '2024.01', familiar: 'registry.example.com:5000/ci/builder:2024.01' },
    ],
    ['localhost:5000/x', { domain: 'localhost:5000', repository: 'x', familiar: 'localhost:5000/x:latest' }],
    ['localhost/tools/x:dev', { domain: 'localhost', repository: 'tools/x', tag: 'dev', familiar: 'localhost/tools/x:dev' }],
    [
      '123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:latest',
      { domain: '123456789012.dkr.ecr.eu-west-1.amazonaws.com', repository: 'app', tag: 'latest', familiar: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:latest' },
    ],
    [`alpine@${digest}`, { domain: 'docker.io', repository: 'library/alpine', digest, familiar: `docker.io/library/alpine@${digest}` }],
    [`alpine:3.20@${digest}`, { domain: 'docker.io', repository: 'library/alpine', tag: '3.20', digest, familiar: `docker.io/library/alpine:3.20@${digest}` }],
    ['my_org/some-image__x.y:Tag_1', { domain: 'docker.io', repository: 'my_org/some-image__x.y', tag: 'Tag_1', familiar: 'docker.io/my_org/some-image__x.y:Tag_1' }],
  ];

  test.each(good)('%s', (image, expected) => {
    expect(checkImageReference(image)).toEqual({ ok: true, image: { original: image, ...expected } });
  });
});

describe('checkImageReference explains what is wrong', () => {
  const bad: [string, RegExp][] = [
    ['', /^it is empty; an image reference looks like/],
    ['   ', /^it is empty/],
    ['alpine:3.20 ', /leading or trailing whitespace/],
    ['alpine 3.20', /whitespace at position 7/],
    ['Alpine:3.20', /repository "Alpine" has uppercase letters; repository names must be lowercase \(try "alpine:3.20"\)/],
    ['ghcr.io/MyOrg/app:1', /repository "MyOrg\/app" has uppercase letters.*\(try "ghcr.io\/myorg\/app:1"\)/],
    ['alpine:', /the tag after ":" is empty; write alpine:<tag>/],
    ['alpine:-edge', /the tag "-edge" may contain only .* must not start with "." or "-"/],
    [`alpine:${'x'.repeat(129)}`, /tag is 129 characters long; at most 128/],
    ['alpine@', /digest after "@" is empty/],
    ['alpine@abc123', /digest "abc123" has no algorithm; write it as sha256:<64 hex characters>/],
    ['alpine@sha256:abc', /a sha256 digest has 64 hex characters, this one has 3/],
    [`alpine@md5:${'0'.repeat(32)}`, /algorithm "md5" is not supported; use sha256, sha384 or sha512/],
    [`alpine@sha256:${'z'.repeat(64)}`, /only hexadecimal characters/],
    ['https://ghcr.io/org/app:1', /remove the "https:\/\/" prefix: .* e\.g\. ghcr\.io\/org\/app:1/],
    ['/alpine', /starts with "\/"/],
    ['library/alpine/', /ends with "\/"/],
    ['ghcr.io//app', /contains "\/\/"/],
    ['a'.repeat(250), /too long \(268 characters with its registry\); at most 255/],
    ['ghcr.io/org/app!', /path part "app!" may contain only lowercase letters and digits/],
    ['my..repo', /path part "my..repo"/],
    ['0123456789abcdef'.repeat(4), /bare 64-character hex string is an image ID/],
    ['ghcr.io:abc/app', /registry host "ghcr.io:abc" is not a valid host name with an optional numeric port/],
  ];

  test.each(bad)('%j', (image, reason) => {
    const result = checkImageReference(image);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('parseImageReference', () => {
  test('returns the normalised reference for a good image', () => {
    expect(parseImageReference('busybox:1.37').familiar).toBe('docker.io/library/busybox:1.37');
  });

  test('throws InvalidImage naming the image, the file, the line and the step', () => {
    const location = { file: '.step-runner.yml', step: 'build', field: 'image', line: 7 };
    let thrown: unknown;
    try {
      parseImageReference('alpine:', location);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidImage);
    const error = thrown as InvalidImage;
    expect(error.name).toBe('InvalidImage');
    expect(error.image).toBe('alpine:');
    expect(error.location).toEqual(location);
    expect(error.message).toBe(
      '.step-runner.yml line 7: step "build": image "alpine:" is not a valid image reference: the tag after ":" is empty; write alpine:<tag> (e.g. alpine:latest) or leave out the ":"',
    );
  });
});
