import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { commandTaskRuntime } from './task-runtime.js';

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
