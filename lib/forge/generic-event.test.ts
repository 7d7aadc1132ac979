import { CHANGED_FILES_LIMIT } from '../contract/index.js';
import { buildInputFor } from './build-request.js';
import { InvalidPayload } from './errors.js';
import { decideGenericDelivery } from './generic-event.js';

const PAYLOAD = { repository: 'team/app', commit: 'abc123', ref: 'refs/heads/main', pipeline: 'version: 1\nsteps: []\n' };

describe('decideGenericDelivery: changed_files', () => {
  it('carries the files the sender lists into the build input, once each', () => {
    const { request, pipeline } = decideGenericDelivery({ ...PAYLOAD, changed_files: ['src/b.ts', 'docs/a.md', 'src/b.ts'] });
    expect(buildInputFor('generic-app-abc123-x', request, pipeline!).changes).toEqual({ known: true, files: ['docs/a.md', 'src/b.ts'] });
  });

  it('has no change when the sender lists none, and an empty one when it lists an empty array', () => {
    const { request, pipeline } = decideGenericDelivery(PAYLOAD);
    expect(buildInputFor('generic-app-abc123-x', request, pipeline!)).not.toHaveProperty('changes');
    expect(decideGenericDelivery({ ...PAYLOAD, changed_files: [] }).request.changes).toEqual({ known: true, files: [] });
  });

  it('does not know a change of more files than an input holds', () => {
    const changed_files = Array.from({ length: CHANGED_FILES_LIMIT + 1 }, (_, i) => `f${i}`);
    expect(decideGenericDelivery({ ...PAYLOAD, changed_files }).request.changes).toEqual({ known: false, why: expect.stringMatching(/1001 files, more than the 1000/) });
  });

  it.each([
    ['not an array', 'src/a.ts', /changed_files: expected array/],
    ['a number in it', ['a', 1], /changed_files\.1: expected string/],
    ['an empty path', [''], /changed_files\.0: must not be empty/],
    ['a path over two lines', ['a\nb'], /changed_files\.0: must be one path on one line/],
  ])('refuses changed_files that is %s, naming the field', (_what, changed_files, message) => {
    expect(() => decideGenericDelivery({ ...PAYLOAD, changed_files })).toThrow(InvalidPayload);
    expect(() => decideGenericDelivery({ ...PAYLOAD, changed_files })).toThrow(message);
  });
});

describe('decideGenericDelivery: manual runs', () => {
  const MANUAL = { repository: 'team/app', ref: 'refs/heads/main', event: 'manual', inputs: { target: 'staging' } };

  it.each([
    ['an inline pipeline, event manual', { ...PAYLOAD, event: 'manual', inputs: { target: 'staging' } }, { trigger: 'generic', event: 'manual', commit: 'abc123', inputs: { target: 'staging' } }, true],
    ['an inline pipeline, no event', PAYLOAD, { trigger: 'generic', event: 'generic', commit: 'abc123' }, true],
    ["the repository's own file at the ref's head", MANUAL, { trigger: 'github manual', event: 'manual', commit: '', inputs: { target: 'staging' } }, false],
    ['no inputs: a manual run still gives none', { repository: 'team/app', ref: 'refs/heads/main' }, { trigger: 'github manual', event: 'manual', commit: '', inputs: {} }, false],
  ])('%s', (_what, payload, request, inline) => {
    const delivery = decideGenericDelivery(payload);
    expect(delivery.request).toEqual(expect.objectContaining(request));
    if (!('inputs' in request)) expect(delivery.request).not.toHaveProperty('inputs');
    expect(delivery.pipeline !== undefined).toBe(inline);
  });

  it.each([
    ['an unknown event', { ...MANUAL, event: 'push' }, /event: must be generic or manual/],
    ['an input that is not text', { ...MANUAL, inputs: { n: 3 } }, /inputs\.n: expected string/],
    ['a pipeline without its commit', { ...MANUAL, pipeline: 'version: 1' }, /has a "pipeline" but no "commit"/],
    ['no pipeline and a repository GitHub cannot name', { ...MANUAL, repository: 'app' }, /"repository" must be owner\/name, not "app"/],
    ['no pipeline and a cloneUrl: the GitHub credentials would go there', { ...MANUAL, cloneUrl: 'https://git.example.com/app.git' }, /leave out "cloneUrl"/],
  ])('refuses %s', (_what, payload, message) => {
    expect(() => decideGenericDelivery(payload)).toThrow(message);
  });
});
