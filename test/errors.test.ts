import { ErrorNames } from '../lib/contract/index.js';
import { GitHubUnavailable } from '../lib/forge/deferred-lookup.js';
import { CredentialsUnavailable } from '../lib/forge/github-app.js';
import {
  CheckoutFailed,
  ContainerRuntimeTimeout,
  ImagePullFailed,
  KubernetesUnavailable,
  PodConfigError,
  PodLost,
  PodStalled,
  ServiceFailed,
  StepFailed,
  StepInterrupted,
  StepTimedOut,
  Unschedulable,
  WorkspaceUnavailable,
} from '../lib/kube/index.js';
import { InvalidImage, InvalidPipeline } from '../lib/pipeline/index.js';
import { Superseded } from '../lib/workflow/superseding.js';

// Lambda reports error.name as the errorType, which Step Functions shows as the Error.
describe('error classes', () => {
  it.each([
    [new InvalidPipeline('m', { file: 'f' }), ErrorNames.InvalidPipeline],
    [new InvalidImage('m', 'alpine:'), ErrorNames.InvalidImage],
    [new ImagePullFailed('m'), ErrorNames.ImagePullFailed],
    [new PodConfigError('m'), ErrorNames.PodConfigError],
    [new Unschedulable('m'), ErrorNames.Unschedulable],
    [new StepFailed('m'), ErrorNames.StepFailed],
    [new StepTimedOut('m'), ErrorNames.StepTimedOut],
    [new PodLost('m'), ErrorNames.PodLost],
    [new KubernetesUnavailable('m', 'create pod ci/x', 5), ErrorNames.KubernetesUnavailable],
    [new CheckoutFailed('m'), ErrorNames.CheckoutFailed],
    [new WorkspaceUnavailable('m'), ErrorNames.WorkspaceUnavailable],
    [new CredentialsUnavailable('m'), ErrorNames.CredentialsUnavailable],
    [new ServiceFailed('m'), ErrorNames.ServiceFailed],
    [new StepInterrupted('m'), ErrorNames.StepInterrupted],
    [new ContainerRuntimeTimeout('m'), ErrorNames.ContainerRuntimeTimeout],
    [new PodStalled('m'), ErrorNames.PodStalled],
    [new GitHubUnavailable('m'), ErrorNames.GitHubUnavailable],
    [new Superseded('m'), ErrorNames.Superseded],
  ])('%p is named %s, the Error the console shows', (error, name) => {
    expect(error.name).toBe(name);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('m');
  });

  it('covers every contract name', () => {
    expect(Object.keys(ErrorNames)).toEqual(Object.values(ErrorNames));
    expect(Object.keys(ErrorNames)).toHaveLength(18);
  });
});
