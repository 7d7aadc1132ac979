import fc from 'fast-check';
import { commitStatusFor, commitStatusReporter, failureDescription, MAX_DESCRIPTION, STATUS_CONTEXT, truncate } from './commit-status.js';

describe('commit status text', () => {
  it('says pending while the build runs and success when it succeeded, linking the execution', () => {
    expect(commitStatusFor('started', undefined, 'https://console/x')).toEqual({
      state: 'pending',
      description: 'Build running',
      context: STATUS_CONTEXT,
      target_url: 'https://console/x',
    });
    expect(commitStatusFor('succeeded').state).toBe('success');
  });

  it('reports a build in which no step ran as a success saying why, so a required check does not wait forever', () => {
    expect(commitStatusFor('succeeded', undefined, undefined, "Skipped by the pipeline's when.paths: no changed file matches src/**")).toMatchObject({
      state: 'success',
      description: "Skipped by the pipeline's when.paths: no changed file matches src/**",
    });
    expect(commitStatusFor('succeeded', undefined, undefined, 'x'.repeat(300)).description.length).toBeLessThanOrEqual(MAX_DESCRIPTION);
  });

  it('names the Error and the Cause when the build failed', () => {
    const status = commitStatusFor('failed', {
      Error: 'ImagePullFailed',
      Cause: 'Step "build" could not pull image node:99: manifest unknown',
    });
    expect(status).toMatchObject({ state: 'failure', description: 'ImagePullFailed: Step "build" could not pull image node:99: manifest unknown' });
  });

  it('says error, not failure, for a build stopped outside the definition, with why', () => {
    expect(commitStatusFor('stopped', { Error: 'ExecutionAborted', Cause: 'The execution was stopped' })).toMatchObject({
      state: 'error',
      description: 'ExecutionAborted: The execution was stopped',
    });
  });

  it("shows a Lambda error's message, never its stack trace", () => {
    const cause = JSON.stringify({
      errorType: 'InvalidPipeline',
      errorMessage: '.step-runner.yml line 6: step "build": timeout: "10 minutes" is not a duration',
      trace: ['InvalidPipeline: ...', '    at parsePipeline (/var/task/index.mjs:1:2)'],
    });
    const description = failureDescription({ Error: 'InvalidPipeline', Cause: cause });
    expect(description).toBe('InvalidPipeline: .step-runner.yml line 6: step "build": timeout: "10 minutes" is not a duration');
    expect(description).not.toContain('/var/task');
  });

  it("fits GitHub's 140 characters, cut at a word with an ellipsis", () => {
    const status = commitStatusFor('failed', { Error: 'StepFailed', Cause: `Step "test" exited with code 1: ${'the quick brown fox '.repeat(20)}` });
    expect(Array.from(status.description).length).toBeLessThanOrEqual(MAX_DESCRIPTION);
    expect(status.description).toMatch(/^StepFailed: Step "test" exited with code 1: the quick .*\b(the|quick|brown|fox)…$/);
  });

  it('never exceeds the limit nor splits a character, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (text) => {
        const cut = truncate(text, MAX_DESCRIPTION);
        expect(Array.from(cut).length).toBeLessThanOrEqual(MAX_DESCRIPTION);
        expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut); // no lone surrogate
        if (Array.from(text).length <= MAX_DESCRIPTION) expect(cut).toBe(text);
      }),
    );
  });
});

describe('a step ending (outcome progress)', () => {
  it('posts no commit status: only a check run shows the steps as they end', async () => {
    const posted: unknown[] = [];
    const reporter = commitStatusReporter({ post: async (commit, status) => (posted.push({ commit, status }), { posted: true }) });
    const build = { id: 'b', trigger: 'github push', repository: 'octo/app', commit: 'a'.repeat(40) };
    expect(await reporter.report({ build, outcome: 'progress' })).toMatchObject({ posted: false, reason: expect.stringContaining('only a check run') });
    expect(await reporter.report({ build, outcome: 'started' })).toMatchObject({ posted: true });
    expect(posted).toHaveLength(1);
  });
});
