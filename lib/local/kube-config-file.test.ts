import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfigError, kubeConfigFromFile } from './kube-config-file.js';

const kubeconfigYaml = `apiVersion: v1
kind: Config
current-context: dev
clusters:
  - name: dev
    cluster: { server: 'http://127.0.0.1:6443' }
  - name: staging
    cluster: { server: 'https://staging.example:6443' }
users:
  - name: me
    user: { token: abc }
contexts:
  - name: dev
    context: { cluster: dev, user: me }
  - name: staging
    context: { cluster: staging, user: me }
`;

let dir: string;
let written = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeKubeconfig(text = kubeconfigYaml): string {
  const file = join(dir, `config-${++written}`);
  writeFileSync(file, text);
  return file;
}

describe('kubeConfigFromFile', () => {
  it('uses the current context, or the one named', () => {
    const file = writeKubeconfig();
    expect(kubeConfigFromFile(file).getCurrentCluster()?.server).toBe('http://127.0.0.1:6443');
    expect(kubeConfigFromFile(file, 'staging').getCurrentCluster()?.server).toBe('https://staging.example:6443');
  });

  it('lets the client talk plain http where the kubeconfig says http, as kubectl does', () => {
    const file = writeKubeconfig();
    expect(kubeConfigFromFile(file).getCurrentCluster()?.skipTLSVerify).toBe(true);
    // https keeps its certificate checks.
    expect(kubeConfigFromFile(file, 'staging').getCurrentCluster()?.skipTLSVerify).toBe(false);
  });

  it('names a missing file', () => {
    expect(() => kubeConfigFromFile('/no/such/kubeconfig')).toThrow(KubeConfigError);
    expect(() => kubeConfigFromFile('/no/such/kubeconfig')).toThrow('"/no/such/kubeconfig" does not exist');
  });

  it('names an unknown context and the ones there are', () => {
    const file = writeKubeconfig();
    expect(() => kubeConfigFromFile(file, 'prod')).toThrow(/context "prod" is not in kubeconfig file ".*"; it has "dev", "staging"/);
  });

  it('says when a file is not a kubeconfig', () => {
    const file = writeKubeconfig('this: [is not\n');
    expect(() => kubeConfigFromFile(file)).toThrow(KubeConfigError);
  });
});
