/**
 * GitHub App authentication over real HTTP (a loopback GitHub): the JWT checked against the public
 * half of a key pair made here, the installation token request as GitHub documents it, and every
 * failure named, with GitHub's words and never the key, the JWT or a token.
 */
import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { startFakeGitHub, type FakeGitHub } from '../../test/fixtures/webhooks/github-server.js';
import {
  appJwt,
  CLONE_PERMISSIONS,
  CredentialsUnavailable,
  gitHubApp,
  gitHubTokenFor,
  STATUS_PERMISSIONS,
  type GitHubAppOptions,
} from './github-app.js';

const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z
const INSTALLATION = 678;
const TOKEN = 'ghs_installationTokenNeverShown0001';

// GitHub hands out PKCS#1 ("BEGIN RSA PRIVATE KEY"); some tools convert to PKCS#8.
const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PKCS1 = pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const PKCS8 = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

let github: FakeGitHub;
beforeAll(async () => {
  github = await startFakeGitHub();
});
afterAll(() => github.close());
beforeEach(() => {
  github.requests.length = 0;
  github.failWith = undefined;
  github.installations.clear();
  github.installations.set(INSTALLATION, { token: TOKEN });
});

function app(options: Partial<GitHubAppOptions> = {}) {
  return gitHubApp({
    appId: '123456',
    privateKey: async () => PKCS1,
    keySource: 'Secrets Manager secret ci/github-app-key',
    baseUrl: github.url,
    now: () => NOW,
    sleep: async () => undefined,
    ...options,
  });
}

/** The JWT's parts, once its RS256 signature has been checked with `publicKey`. */
function verifiedJwt(jwt: string, publicKey: KeyObject = pair.publicKey) {
  const [header, payload, signature] = jwt.split('.');
  expect(verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
  const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  return { header: decode(header!), payload: decode(payload!) };
}

function caught(promise: Promise<unknown>): Promise<CredentialsUnavailable> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(CredentialsUnavailable);
      return error as CredentialsUnavailable;
    },
  );
}

function expectNoSecretIn(text: string, ...secrets: string[]) {
  for (const secret of [TOKEN, ...secrets]) expect(text).not.toContain(secret);
  expect(text).not.toContain('PRIVATE KEY');
  expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/); // a JWT
}

describe('the App JWT', () => {
  it('is RS256, signed with the App key, issued a minute back and expiring within 10 minutes', async () => {
    const { header, payload } = verifiedJwt(await appJwt('123456', PKCS1, NOW));
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(payload).toEqual({ iss: 123456, iat: NOW - 60, exp: NOW + 540 });
    expect((payload.exp as number) - NOW).toBeLessThanOrEqual(600);
  });

  it('takes a PKCS#8 key too, and a client id as the issuer', async () => {
    const { payload } = verifiedJwt(await appJwt('Iv23liAbCdEf', PKCS8, NOW));
    expect(payload.iss).toBe('Iv23liAbCdEf');
  });

  it('is not signed by any other key', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const [header, payload, signature] = (await appJwt('1', PKCS1, NOW)).split('.');
    expect(verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), other, Buffer.from(signature!, 'base64url'))).toBe(false);
  });
});

describe('an installation token', () => {
  it('is asked of GitHub for one repository and the permissions given, with the App JWT', async () => {
    const token = await app().installationToken(INSTALLATION, 'acme/private-app', CLONE_PERMISSIONS);
    expect(token).toEqual({ token: TOKEN, expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
    expect(github.requests).toHaveLength(1);
    const [request] = github.requests;
    expect(request).toMatchObject({ method: 'POST', path: `/app/installations/${INSTALLATION}/access_tokens` });
    expect(JSON.parse(request!.body)).toEqual({ repositories: ['private-app'], permissions: { contents: 'read' } });
    expect(request!.headers).toMatchObject({ accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
    const jwt = /^Bearer (.+)$/.exec(request!.headers.authorization ?? '')?.[1];
    expect(verifiedJwt(jwt!, createPublicKey(PKCS1)).payload).toEqual({ iss: 123456, iat: NOW - 60, exp: NOW + 540 });
  });

  it('takes a key whose line breaks were escaped on the way into the secret', async () => {
    await expect(app({ privateKey: async () => PKCS1.replace(/\n/g, '\\n') }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS)).resolves.toMatchObject({ token: TOKEN });
  });

  it('is asked anew each time, unless the App reuses tokens with time left', async () => {
    await app().installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS);
    await app().installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS);
    expect(github.requests).toHaveLength(2);

    github.requests.length = 0;
    // The fake's tokens expire an hour after the real clock's now.
    let now = Math.floor(Date.now() / 1000);
    const reusing = app({ reuseSeconds: 300, now: () => now });
    await reusing.installationToken(INSTALLATION, 'acme/app', STATUS_PERMISSIONS);
    await reusing.installationToken(INSTALLATION, 'acme/app', STATUS_PERMISSIONS);
    expect(github.requests).toHaveLength(1);
    // Another repository or other permissions are another token.
    await reusing.installationToken(INSTALLATION, 'acme/other', STATUS_PERMISSIONS);
    await reusing.installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS);
    expect(github.requests).toHaveLength(3);
    // 56 minutes on, less than 5 are left.
    now += 56 * 60;
    await reusing.installationToken(INSTALLATION, 'acme/app', STATUS_PERMISSIONS);
    expect(github.requests).toHaveLength(4);
  });
});

describe('a token GitHub will not give', () => {
  it('names the App, the installation, the repository and GitHub\'s words when the installation is gone', async () => {
    github.installations.delete(INSTALLATION);
    const error = await caught(app().installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
    expect(error.name).toBe('CredentialsUnavailable');
    expect(error.message).toBe(
      'GitHub App 123456 could not get a token of installation 678 for acme/app (contents: read): GitHub API answered 404 (Not Found). ' +
        'The App is no longer installed there (or GITHUB_API_URL points at another GitHub).',
    );
    expect(github.requests).toHaveLength(1);
  });

  it.each([
    [401, 'A JSON web token could not be decoded', /answered 401 \(A JSON web token could not be decoded\)\. GitHub did not accept the App's JWT: the App id \(GITHUB_APP_ID\)/],
    [403, 'This installation has been suspended', /answered 403 \(This installation has been suspended\)\. The installation may be suspended/],
    [422, 'The permissions requested are not granted to this installation.', /answered 422 \(The permissions requested are not granted to this installation\.\)\. The installation may not reach acme\/app, or the App lacks contents: read/],
  ])('says what a %i means, never retrying it', async (status, message, expected) => {
    github.installations.set(INSTALLATION, { status, message });
    const error = await caught(app().installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
    expect(error.message).toMatch(expected);
    expectNoSecretIn(error.message);
    expect(github.requests).toHaveLength(1);
  });

  it('retries what a retry may cure, then names the attempts', async () => {
    const waits: number[] = [];
    github.installations.set(INSTALLATION, { status: 502, message: 'Server Error' });
    const error = await caught(app({ sleep: async (ms) => void waits.push(ms) }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
    expect(error.message).toMatch(/answered 502 \(Server Error\) after 3 attempts\. GitHub kept failing/);
    expect(waits).toEqual([500, 1000]);
    expect(github.requests).toHaveLength(3);

    // GitHub recovers while the task waits: the build gets its token.
    github.requests.length = 0;
    const recovering = app({ sleep: async () => void github.installations.set(INSTALLATION, { token: TOKEN }) });
    github.installations.set(INSTALLATION, { status: 503, message: 'Service Unavailable' });
    await expect(recovering.installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS)).resolves.toMatchObject({ token: TOKEN });
    expect(github.requests).toHaveLength(2);
  });

  it('says GitHub was unreachable when nothing answers', async () => {
    const gone = await startFakeGitHub();
    await gone.close();
    const error = await caught(app({ baseUrl: gone.url, attempts: 2 }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
    expect(error.message).toMatch(/^GitHub App 123456 could not get a token of installation 678 for acme\/app \(contents: read\): GitHub API unreachable \(.+\) after 2 attempts\./);
  });
});

describe('a private key that cannot sign', () => {
  it('says the secret holds no PEM key, without quoting it or asking GitHub', async () => {
    const notAKey = 'ghp_someonePastedATokenHere0000000000000';
    const error = await caught(app({ privateKey: async () => notAKey }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
    expect(error.message).toBe(
      'GitHub App 123456: its private key (Secrets Manager secret ci/github-app-key) is not a private key in PEM form: ' +
        'store the whole .pem file GitHub gave, its BEGIN and END lines included.',
    );
    expect(error.message).not.toContain(notAKey);
    expect(github.requests).toHaveLength(0);
  });

  it('refuses a key that is not RSA', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const error = await caught(app({ privateKey: async () => ec }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
    expect(error.message).toMatch(/its private key \(Secrets Manager secret ci\/github-app-key\) is an EC key: a GitHub App signs with the RSA key/);
    expectNoSecretIn(error.message);
  });

  it('names the failure to read the key, with the store\'s words', async () => {
    const denied = Object.assign(new Error('User is not authorized to perform: secretsmanager:GetSecretValue'), { name: 'AccessDeniedException' });
    const error = await caught(app({ privateKey: () => Promise.reject(denied) }).installationToken(INSTALLATION, 'acme/app', CLONE_PERMISSIONS));
    expect(error.message).toBe(
      'GitHub App 123456: its private key (Secrets Manager secret ci/github-app-key) could not be read: AccessDeniedException: User is not authorized to perform: secretsmanager:GetSecretValue',
    );
  });
});

describe('which token a call gets', () => {
  const target = { repository: 'acme/app', installationId: INSTALLATION };

  it("is the App's installation token when the build came through the App", async () => {
    const chosen = await gitHubTokenFor({ app: app(), token: 'ghp_deploymentToken' }, target, CLONE_PERMISSIONS);
    // With GitHub's expiry, so a build that clones later can renew it.
    expect(chosen).toEqual({
      token: TOKEN,
      description: 'an installation token of GitHub App 123456 (installation 678; contents: read on acme/app only)',
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
  });

  it("is the deployment's token for a build without an installation, or a deployment without an App", async () => {
    expect(await gitHubTokenFor({ app: app(), token: 'ghp_deploymentToken' }, { repository: 'acme/app' }, CLONE_PERMISSIONS)).toEqual({
      token: 'ghp_deploymentToken',
      description: "the deployment's GitHub token",
    });
    expect(await gitHubTokenFor({ token: 'ghp_deploymentToken' }, target, CLONE_PERMISSIONS)).toMatchObject({ token: 'ghp_deploymentToken' });
    expect(github.requests).toHaveLength(0);
  });

  it('is none without either', async () => {
    expect(await gitHubTokenFor({}, target, CLONE_PERMISSIONS)).toBeUndefined();
    expect(await gitHubTokenFor({ app: app() }, { repository: 'acme/app' }, CLONE_PERMISSIONS)).toBeUndefined();
  });

  it("never falls back to the deployment's token when the App fails: that would hide a broken App", async () => {
    github.installations.delete(INSTALLATION);
    await caught(gitHubTokenFor({ app: app(), token: 'ghp_deploymentToken' }, target, CLONE_PERMISSIONS));
  });
});
