/**
 * A step's `build:` in a pipeline file: its normal form (defaults, the Dockerfile's place in the
 * workspace, the builder image until the deployment's), and each refusal with its line.
 */
import { readPipelineText as read, pipelineTextProblems as problems } from '../../test/fixtures/pipeline-text.js';
import { DEFAULT_BUILDER_IMAGE, dockerfilePath } from './build.js';
import type { StepBuild } from './types.js';

/** A one-step file whose step `image` is built; `build` is written from line 4. */
const file = (build: string, rest = '') => `version: 1\nsteps:\n  - name: image\n${build}${rest}`;

describe('build in the normal form', () => {
  it.each<[string, string, StepBuild]>([
    ['tags alone: the whole workspace, its Dockerfile, pushed', '    build: {tags: [ghcr.io/org/app:1.0]}\n', { context: '.', dockerfile: 'Dockerfile', buildArgs: {}, tags: ['ghcr.io/org/app:1.0'], push: true, labels: {}, line: 4 }],
    ['one tag as text', '    build: {tags: ghcr.io/org/app:1.0}\n', { context: '.', dockerfile: 'Dockerfile', buildArgs: {}, tags: ['ghcr.io/org/app:1.0'], push: true, labels: {}, line: 4 }],
    ['push: false needs no tags', '    build: {push: false}\n', { context: '.', dockerfile: 'Dockerfile', buildArgs: {}, tags: [], push: false, labels: {}, line: 4 }],
    [
      'every key',
      '    build:\n      context: services/api/\n      dockerfile: docker/Dockerfile.prod\n      target: runtime\n      build-args: {NODE_VERSION: 22, DEBUG: false}\n      tags: [registry.example.com:5000/api:2, registry.example.com:5000/api:2]\n      cache: registry.example.com:5000/api/cache\n      labels: {org.opencontainers.image.title: api}\n',
      {
        context: 'services/api',
        dockerfile: 'services/api/docker/Dockerfile.prod',
        target: 'runtime',
        buildArgs: { NODE_VERSION: '22', DEBUG: 'false' },
        tags: ['registry.example.com:5000/api:2'],
        push: true,
        cache: { repository: 'registry.example.com:5000/api/cache', write: true },
        labels: { 'org.opencontainers.image.title': 'api' },
        // The line that names the Dockerfile.
        line: 6,
      },
    ],
  ])('%s', (_, build, expected) => {
    const [step] = read(file(build)).steps;
    expect(step?.build).toEqual(expected);
    expect(step?.image).toBe(DEFAULT_BUILDER_IMAGE);
    expect(step?.commands).toEqual([]);
  });

  it('points at the dockerfile line when the file names one', () => {
    const [step] = read(file('    build:\n      tags: [a.io/b:1]\n      dockerfile: Containerfile\n')).steps;
    expect(step?.build).toMatchObject({ dockerfile: 'Containerfile', line: 6 });
  });

  it.each([
    ['.', 'Dockerfile', 'Dockerfile'],
    ['./app', './Dockerfile', 'app/Dockerfile'],
    ['app', 'build/Dockerfile', 'app/build/Dockerfile'],
  ])('the Dockerfile of context %s and dockerfile %s is %s in the workspace', (context, dockerfile, expected) => {
    expect(dockerfilePath(context, dockerfile)).toBe(expected);
  });
});

describe('build refused', () => {
  it.each<[string, string, { message: string; line?: number }[]]>([
    [
      'beside image and commands',
      '    image: alpine\n    commands: [make]\n    build: {tags: [a.io/b:1]}\n',
      [
        { line: 4, message: 'ci.yml line 4: step "image": image: goes with build on the same step: a build step runs the deployment\'s builder image, not an image of its own; move the image to a step of its own' },
        { line: 5, message: 'ci.yml line 5: step "image": commands: goes with build on the same step: a build step runs the deployment\'s builder image, not commands of its own; move the commands to a step of its own' },
      ],
    ],
    ['a push with no tags', '    build: {context: app}\n', [{ line: 4, message: 'ci.yml line 4: step "image": build.tags: missing: a build that pushes needs the tags to push (or "push: false" to build only)' }]],
    ['a tag with a digest', '    build: {tags: ["a.io/b@sha256:' + 'a'.repeat(64) + '"]}\n', [{ line: 4, message: `ci.yml line 4: step "image": build.tags[0]: "a.io/b@sha256:${'a'.repeat(64)}" names a digest: a build pushes tags, and the registry gives the digest` }]],
    ['a tag with no tag', '    build: {tags: [a.io/b]}\n', [{ line: 4, message: 'ci.yml line 4: step "image": build.tags[0]: "a.io/b" names no tag: write the tag to push (e.g. "a.io/b:1.0"); "latest" is never assumed for a push' }]],
    ['a tag that is no reference', '    build:\n      tags: ["App:1"]\n', [{ line: 5, message: expect.stringContaining('ci.yml line 5: step "image": build.tags[0]: ') as unknown as string }]],
    ['a context outside the workspace', '    build: {context: ../other, tags: [a.io/b:1]}\n', [{ line: 4, message: 'ci.yml line 4: step "image": build.context: "../other" has a ".." segment: the context and the Dockerfile stay inside the workspace' }]],
    ['an absolute Dockerfile', '    build: {dockerfile: /etc/Dockerfile, tags: [a.io/b:1]}\n', [{ line: 4, message: 'ci.yml line 4: step "image": build.dockerfile: "/etc/Dockerfile" is absolute: the context and the Dockerfile are relative to the workspace (/workspace)' }]],
    ['a cache with a tag', '    build: {cache: "a.io/b/cache:1", tags: [a.io/b:1]}\n', [{ line: 4, message: 'ci.yml line 4: step "image": build.cache: "a.io/b/cache:1" names a tag: the cache is a repository (e.g. ghcr.io/org/app/cache), each layer a tag of its own' }]],
    ['a target that is no stage name', '    build: {target: "2nd stage", tags: [a.io/b:1]}\n', [{ line: 4, message: 'ci.yml line 4: step "image": build.target: "2nd stage" is not a stage name: a letter, then letters, digits, "-", "_" and "."' }]],
    ['a build argument that is no name', '    build: {build-args: {"A-B": x}, tags: [a.io/b:1]}\n', [{ line: 4, message: 'ci.yml line 4: step "image": build.build-args.A-B: "A-B" is not a build argument name: letters, digits and "_", not starting with a digit' }]],
    ['push that is no boolean', '    build: {push: "no", tags: [a.io/b:1]}\n', [{ line: 4, message: 'ci.yml line 4: step "image": build.push: must be true or false, not the text "no"' }]],
    ['a misspelt key, said once', '    build: {tag: [a.io/b:1]}\n', [{ line: 4, message: 'ci.yml line 4: step "image": unknown field "tag" (did you mean "tags"?)' }]],
    ['build as a list', '    build: [a.io/b:1]\n', [{ line: 4, message: 'ci.yml line 4: step "image": build: must be a map with context, dockerfile, target, build-args, tags, push, cache and/or labels, not a list' }]],
    [
      'services, cache and artifacts',
      '    build: {tags: [a.io/b:1]}\n    services: [{name: db, image: postgres:16}]\n    cache: [{key: {prefix: x}, paths: [node_modules]}]\n    artifacts: {paths: [dist/]}\n',
      [
        { line: 5, message: 'ci.yml line 5: step "image": services: is not for a build step: its builder reaches no service (a RUN instruction runs in the builder\'s own network namespace)' },
        { line: 6, message: 'ci.yml line 6: step "image": cache: is not for a build step: the builder reuses layers itself (--layers); a step\'s cache restores and saves folders around commands' },
        { line: 7, message: 'ci.yml line 7: step "image": artifacts: is not for a build step: what it keeps is the image it pushes' },
      ],
    ],
    [
      'neither image nor build',
      '    env: {A: b}\n',
      [
        { line: 3, message: 'ci.yml line 3: step "image": image: missing (every step needs an image, or a build or an approval)' },
        { line: 3, message: 'ci.yml line 3: step "image": commands: missing: every step needs at least one command (or a build or an approval)' },
      ],
    ],
  ])('%s', (_, build, expected) => {
    expect(problems(file(build))).toEqual(expected);
  });

  it("leaves the pipeline's services and caches to the steps that run commands", () => {
    const text = 'version: 1\nservices: [{name: db, image: postgres:16}]\ncache: [{key: {prefix: x}, paths: [node_modules]}]\nsteps:\n  - name: test\n    image: node:22\n    commands: [npm test]\n  - name: image\n    build: {tags: [a.io/b:1]}\n';
    const [test, image] = read(text).steps;
    expect([test?.services?.length, test?.cache?.length]).toEqual([1, 1]);
    expect([image?.services, image?.cache]).toEqual([undefined, undefined]);
  });

  it('says a misspelt image once, as before builds existed', () => {
    expect(problems(file('    imgae: alpine\n    commands: [make]\n'))).toEqual([{ line: 4, message: 'ci.yml line 4: step "image": unknown field "imgae" (did you mean "image"?)' }]);
  });
});
