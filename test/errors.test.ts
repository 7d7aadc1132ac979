/**
 * The Errors a build can end with (lib/contract/errors.ts): the classes the tasks throw are named
 * by them, and the reference's Error table (docs/contracts.md) lists them as the catalogue does,
 * with the same retry verdicts and anchors that lead somewhere.
 */
import { readFileSync } from 'node:fs';
import { ERRORS, ErrorNames, RETRYABLE_ERRORS } from '../lib/contract/index.js';
import { GitHubUnavailable } from '../lib/forge/deferred-lookup.js';
import { CredentialsUnavailable } from '../lib/forge/github-app.js';
import { KubernetesUnavailable, PodConfigError, WorkspaceUnavailable } from '../lib/kube/index.js';
import { InvalidImage, InvalidPipeline } from '../lib/pipeline/index.js';
import { DEFAULT_STEP_RETRY } from '../lib/pipeline/retry.js';
import { ImagePullFailed } from '../lib/workflow/image-check.js';
import { IdentityNotAllowed } from '../lib/workflow/identities.js';

// Lambda reports error.name as the errorType, which Step Functions shows as the Error.
describe('error classes', () => {
  it.each([
    [new InvalidPipeline('m', { file: 'f' }), ErrorNames.InvalidPipeline],
    [new InvalidImage('m', 'alpine:'), ErrorNames.InvalidImage],
    [new ImagePullFailed('m'), ErrorNames.ImagePullFailed],
    [new PodConfigError('m'), ErrorNames.PodConfigError],
    [new KubernetesUnavailable('m', 'create pod ci/x', 5), ErrorNames.KubernetesUnavailable],
    [new WorkspaceUnavailable('m'), ErrorNames.WorkspaceUnavailable],
    [new CredentialsUnavailable('m'), ErrorNames.CredentialsUnavailable],
    [new GitHubUnavailable('m'), ErrorNames.GitHubUnavailable],
    [new IdentityNotAllowed('m'), ErrorNames.IdentityNotAllowed],
  ])('%p is named %s, the Error the console shows', (error, name) => {
    expect(error.name).toBe(name);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('m');
  });

  it('names each Error of the catalogue by itself', () => {
    expect(Object.entries(ErrorNames).filter(([key, name]) => key !== name)).toEqual([]);
    expect(Object.keys(ErrorNames)).toEqual(Object.keys(ERRORS));
  });
});

describe('what a retry can do, by Error', () => {
  it('is what retry.on may list, in the order its refusals name them, and the default', () => {
    expect(RETRYABLE_ERRORS).toEqual(['StepInterrupted', 'StepFailed', 'StepTimedOut', 'PodLost', 'ServiceFailed', 'ContainerRuntimeTimeout']);
    expect(DEFAULT_STEP_RETRY).toEqual({ max: 2, on: ['StepInterrupted', 'ContainerRuntimeTimeout'] });
  });

  it('gives each Error a meaning of one sentence on one line', () => {
    const meanings = Object.entries(ERRORS).map(([name, entry]) => [name, entry.meaning]);
    expect(meanings.filter(([, meaning]) => !/^[A-Z][^\n]+\.$/.test(meaning!))).toEqual([]);
  });
});

const RETRY_COLUMN: Record<string, string> = { default: 'by default', 'on request': 'when `retry.on` lists it' };

/** The reference's Error table: each row's name and its last cell. */
function documentedErrors(): { name: string; retry: string }[] {
  const contracts = readFileSync(new URL('../docs/contracts.md', import.meta.url), 'utf8');
  const section = contracts.split(/^## Step Functions errors$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `([^`]+)` \|.*\| ([^|]+) \|$/gm)].map((match) => ({ name: match[1]!, retry: match[2]!.trim() }));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const headings = [...markdown.matchAll(/^#+ (.+)$/gm)].map((match) => match[1]!);
  return new Set(headings.map((heading) => heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')));
}

describe("the reference's Error table", () => {
  it('lists every Error, in the catalogue order, with its retry verdict', () => {
    const expected = Object.entries(ERRORS).map(([name, entry]) => ({ name, retry: typeof entry.retry === 'string' ? RETRY_COLUMN[entry.retry] : 'no' }));
    expect(documentedErrors()).toEqual(expected);
  });

  it.each(Object.entries(ERRORS).map(([name, entry]) => [name, entry.docs]))("%s: its anchor %s is a heading of the file", (_, docs) => {
    const [file, anchor] = docs.split('#');
    expect(anchorsOf(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'))).toContain(anchor);
  });
});
