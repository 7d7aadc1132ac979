/**
 * A build step's Dockerfile as PrepareBuild reads it: the base image of each stage, with its
 * arguments resolved, the stages that name earlier ones, and the line of every instruction.
 */
import { dockerfileInstructions, expandArgs, readDockerfile, type DockerfileFrom } from './dockerfile.js';

const TWO_STAGES = `# syntax=docker/dockerfile:1
ARG NODE_VERSION=22
ARG REGISTRY
FROM node:\${NODE_VERSION}-alpine AS deps
RUN npm ci

# the runtime stage
FROM \${REGISTRY:-docker.io}/library/node:\${NODE_VERSION}-slim
COPY --from=deps /app/node_modules /app/node_modules
RUN apt-get update && \\
    apt-get install -y curl
CMD ["node", "server.js"]
`;

describe('readDockerfile', () => {
  it.each<[string, string, Record<string, string>, DockerfileFrom[]]>([
    [
      'two stages, arguments from their defaults',
      TWO_STAGES,
      {},
      [
        { line: 4, written: 'node:${NODE_VERSION}-alpine', name: 'deps', image: 'node:22-alpine' },
        { line: 8, written: '${REGISTRY:-docker.io}/library/node:${NODE_VERSION}-slim', image: 'docker.io/library/node:22-slim' },
      ],
    ],
    [
      "the step's build-args over the defaults",
      TWO_STAGES,
      { NODE_VERSION: '20', REGISTRY: 'mirror.example.com' },
      [
        { line: 4, written: 'node:${NODE_VERSION}-alpine', name: 'deps', image: 'node:20-alpine' },
        { line: 8, written: '${REGISTRY:-docker.io}/library/node:${NODE_VERSION}-slim', image: 'mirror.example.com/library/node:20-slim' },
      ],
    ],
    [
      'a stage named by a later FROM is no image, whatever its case; scratch is none either',
      'FROM golang:1.23 AS Build\nRUN go build\nFROM build AS test\nFROM scratch\nCOPY --from=build /app /app\n',
      {},
      [
        { line: 1, written: 'golang:1.23', name: 'build', image: 'golang:1.23' },
        { line: 3, written: 'build', name: 'test', stage: 'build' },
        { line: 4, written: 'scratch' },
      ],
    ],
    [
      'an argument with no value is left to the builder',
      'ARG BASE\nFROM $BASE\n',
      {},
      [{ line: 2, written: '$BASE', unresolved: 'BASE' }],
    ],
    ['--platform is not the image', 'FROM --platform=$BUILDPLATFORM alpine:3.20 AS x\n', {}, [{ line: 1, written: 'alpine:3.20', name: 'x', image: 'alpine:3.20' }]],
    ['an ARG after the first FROM is not in scope for the next FROM', 'FROM alpine:3.20\nARG TAG=1\nFROM app:$TAG\n', {}, [{ line: 1, written: 'alpine:3.20', image: 'alpine:3.20' }, { line: 3, written: 'app:$TAG', unresolved: 'TAG' }]],
    ['lower-case instructions', 'from alpine:3.20 as base\n', {}, [{ line: 1, written: 'alpine:3.20', name: 'base', image: 'alpine:3.20' }]],
    ['several arguments on one ARG, quoted', 'ARG A="x" B=y\nFROM $A:$B\n', {}, [{ line: 2, written: '$A:$B', image: 'x:y' }]],
  ])('%s', (_, text, buildArgs, froms) => {
    expect(readDockerfile(text, buildArgs).stages.map((stage) => stage.from)).toEqual(froms);
  });

  it('gives every instruction its first line, comments and continuations left out', () => {
    expect(readDockerfile(TWO_STAGES).stages.map((stage) => stage.instructionLines)).toEqual([[4, 5], [8, 9, 10, 12]]);
  });

  it('says when there is no FROM', () => {
    expect(readDockerfile('# nothing\nRUN true\n')).toEqual({ stages: [], problem: 'it has no FROM instruction' });
  });

  it('follows an escape directive', () => {
    const text = '# escape=`\nFROM mcr.microsoft.com/windows/servercore:ltsc2022\nRUN dir c:\\ `\n    && echo done\nRUN echo two\n';
    expect(dockerfileInstructions(text).map((i) => [i.line, i.keyword])).toEqual([[2, 'FROM'], [3, 'RUN'], [5, 'RUN']]);
  });
});

describe('expandArgs', () => {
  const args = new Map<string, string | undefined>([['SET', 'v'], ['EMPTY', ''], ['NONE', undefined]]);
  it.each([
    ['$SET', { value: 'v' }],
    ['${SET}-x', { value: 'v-x' }],
    ['${EMPTY:-d}', { value: 'd' }],
    ['${NONE:-d}', { value: 'd' }],
    ['${SET:+alt}', { value: 'alt' }],
    ['${NONE:+alt}', { value: '' }],
    ['$NONE', { unresolved: 'NONE' }],
    ['$UNDECLARED', { unresolved: 'UNDECLARED' }],
  ])('%s', (word, expected) => {
    expect(expandArgs(word, args)).toEqual(expected);
  });
});
