/**
 * A build step's Dockerfile read from the pushed commit through GitHub's contents API (the
 * loopback stand-in), as PrepareBuild does on AWS: the file, a file the commit lacks, and GitHub
 * failing, each an answer and never a thrown error.
 */
import { startFakeGitHub, type FakeGitHub } from '../../test/fixtures/webhooks/github-server.js';
import { gitHubRepositoryFiles } from './pipeline-source.js';

let github: FakeGitHub;
beforeAll(async () => {
  github = await startFakeGitHub();
});
afterAll(() => github.close());

const request = { repository: 'org/app', commit: 'a'.repeat(40) };
const files = () => gitHubRepositoryFiles({ token: 'ghp_deployment' }, request, { baseUrl: github.url, timeoutMs: 5_000 });

it.each(['raw', 'json'] as const)('reads a file of the commit (%s form) with the token, at the commit', async (form) => {
  github.files.set(`org/app@${request.commit}:app/Dockerfile`, { text: 'FROM alpine:3.20\n', form });
  expect(await files().read('app/Dockerfile')).toEqual({ found: true, text: 'FROM alpine:3.20\n' });
  const asked = github.requests.at(-1)!;
  expect([asked.path, asked.query.get('ref'), asked.headers.authorization]).toEqual(['/repos/org/app/contents/app/Dockerfile', request.commit, 'Bearer ghp_deployment']);
});

it('says a file the commit lacks is not found', async () => {
  expect(await files().read('Containerfile')).toEqual({ found: false, reason: 'not found' });
});

it("says GitHub's failure as a file not read", async () => {
  github.failWith = 500;
  try {
    const read = await files().read('app/Dockerfile');
    expect(read.found).toBe(false);
    expect(!read.found && read.reason).toMatch(/500/);
  } finally {
    github.failWith = undefined;
  }
});
