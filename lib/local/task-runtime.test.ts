import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EnvNames } from '../lambda/settings.js';
import { DEFAULT_CACHE_IMAGE, DEFAULT_CLONE_IMAGE } from '../workflow/settings.js';
import { BUILDER_IMAGE_ENV, CACHE_IMAGE_ENV, CLONE_IMAGE_ENV, commandSettings, commandTaskRuntime } from './task-runtime.js';

let root: string;
let kubeconfig: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'task-runtime-'));
  kubeconfig = path.join(root, 'kubeconfig');
  await writeFile(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts:
  - {name: team, context: {cluster: c, user: u, namespace: team-ci}}
  - {name: plain, context: {cluster: c, user: u}}
current-context: team
`,
  );
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('the namespace of run and serve', () => {
  it('is the kubeconfig context\'s, as kubectl takes it, unless --namespace names one', () => {
    expect(commandTaskRuntime(kubeconfig, { kubeconfig }).settings.namespace).toBe('team-ci');
    expect(commandTaskRuntime(kubeconfig, { kubeconfig, namespace: 'other' }).settings.namespace).toBe('other');
  });

  it('is default for a context that names none', () => {
    expect(commandTaskRuntime(kubeconfig, { kubeconfig, context: 'plain' }).settings.namespace).toBe('default');
  });
});

describe('the clone image of run and serve', () => {
  it.each([
    { flag: undefined, env: {}, image: DEFAULT_CLONE_IMAGE },
    { flag: undefined, env: { CLONE_IMAGE: '' }, image: DEFAULT_CLONE_IMAGE },
    { flag: undefined, env: { CLONE_IMAGE: 'mirror.example.com/git:2' }, image: 'mirror.example.com/git:2' },
    { flag: 'localhost:5000/git:1', env: { CLONE_IMAGE: 'mirror.example.com/git:2' }, image: 'localhost:5000/git:1' },
    { flag: 'localhost:5000/git:1', env: {}, image: 'localhost:5000/git:1' },
  ])('--clone-image $flag with CLONE_IMAGE=$env.CLONE_IMAGE: $image', ({ flag, env, image }) => {
    const options = { kubeconfig, ...(flag ? { cloneImage: flag } : {}) };
    expect(commandTaskRuntime(kubeconfig, options, env).settings.cloneImage).toBe(image);
  });

  it('reads the variable the deployment reads', () => {
    expect(CLONE_IMAGE_ENV).toBe(EnvNames.cloneImage);
  });

  it('leaves the other settings alone', () => {
    expect(commandSettings({ cloneImage: 'localhost:5000/git:1' }, {})).toEqual({ cloneImage: 'localhost:5000/git:1' });
    expect(commandSettings({ workspaceMode: 'ephemeral' }, {})).toEqual({ workspaceMode: 'ephemeral' });
    expect(commandSettings({}, {})).toEqual({});
  });
});

describe('the cache image of run and serve', () => {
  it.each([
    { flag: undefined, env: {}, image: DEFAULT_CACHE_IMAGE },
    { flag: undefined, env: { CACHE_IMAGE: '' }, image: DEFAULT_CACHE_IMAGE },
    { flag: undefined, env: { CACHE_IMAGE: 'mirror.example.com/curl:8' }, image: 'mirror.example.com/curl:8' },
    { flag: 'localhost:5000/curl:1', env: { CACHE_IMAGE: 'mirror.example.com/curl:8' }, image: 'localhost:5000/curl:1' },
    { flag: 'localhost:5000/curl:1', env: {}, image: 'localhost:5000/curl:1' },
  ])('--cache-image $flag with CACHE_IMAGE=$env.CACHE_IMAGE: $image', ({ flag, env, image }) => {
    const options = { kubeconfig, ...(flag ? { cacheImage: flag } : {}) };
    expect(commandTaskRuntime(kubeconfig, options, env).settings.cacheImage).toBe(image);
  });

  it('reads the variable the deployment reads, and only sets the cache image', () => {
    expect(CACHE_IMAGE_ENV).toBe(EnvNames.cacheImage);
    expect(commandSettings({}, { CACHE_IMAGE: 'localhost:5000/curl:1' })).toEqual({ cacheImage: 'localhost:5000/curl:1' });
  });
});

describe('the builder image of run and serve', () => {
  it.each([
    { env: {}, image: undefined },
    { env: { BUILDER_IMAGE: '' }, image: undefined },
    { env: { BUILDER_IMAGE: '127.0.0.1:5000/test/builder:1' }, image: '127.0.0.1:5000/test/builder:1' },
  ])('BUILDER_IMAGE=$env.BUILDER_IMAGE: $image (absent: the default builder)', ({ env, image }) => {
    expect(commandTaskRuntime(kubeconfig, { kubeconfig }, env).settings.builderImage).toBe(image);
  });

  it('reads the variable the deployment reads', () => {
    expect(BUILDER_IMAGE_ENV).toBe(EnvNames.builderImage);
  });
});
