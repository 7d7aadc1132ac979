import type { Pod, Secret } from './objects.js';
import { parseImageReference } from './image-catalog.js';
import { pullAuth } from './pull-credentials.js';

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const secrets: Record<string, Secret> = {
  hub: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hub' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': encode({ auths: { 'https://index.docker.io/v1/': { auth: Buffer.from('me:hub-token').toString('base64') } } }) } },
  local: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'local' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': encode({ auths: { '127.0.0.1:5000': { username: 'ci', password: 'pw' } } }) } },
  broken: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'broken' }, data: { '.dockerconfigjson': Buffer.from('{not json').toString('base64') } },
} as unknown as Record<string, Secret>;

function pod(names: string[]): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ci' }, spec: { containers: [], imagePullSecrets: names.map((name) => ({ name })) } } as unknown as Pod;
}

test.each([
  ['Docker Hub by its legacy URL key, from `auth`', ['hub'], 'node:22', { username: 'me', password: 'hub-token', serveraddress: 'https://index.docker.io/v1/' }],
  ['a registry by host:port', ['broken', 'hub', 'local'], '127.0.0.1:5000/team/app:1', { username: 'ci', password: 'pw', serveraddress: '127.0.0.1:5000' }],
  ['no secret for the registry: anonymous', ['hub'], 'ghcr.io/team/app:1', undefined],
  ['a secret that does not exist is passed over', ['missing', 'local'], '127.0.0.1:5000/x', { username: 'ci', password: 'pw', serveraddress: '127.0.0.1:5000' }],
])('%s', (_case, names, image, expected) => {
  const parsed = parseImageReference(image);
  if (!parsed.ok) throw new Error(parsed.message);
  expect(pullAuth(pod(names), parsed.reference, (name) => secrets[name])).toEqual(expected);
});
