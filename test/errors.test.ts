import { ErrorNames, ImagePullFailed, errorFromStatus } from '../lib/workflow/errors.js';

describe('error names', () => {
  it('are the Step Functions Error the console shows', () => {
    const error = new ImagePullFailed('step "build" could not pull "alpine:nope"');
    expect(error.name).toBe('ImagePullFailed');
    expect(error).toBeInstanceOf(Error);
  });

  it.each(Object.values(ErrorNames))('%s maps back from a classified status', (name) => {
    const error = errorFromStatus(name, 'why');
    expect(error.name).toBe(name);
    expect(error.message).toBe('why');
  });
});
