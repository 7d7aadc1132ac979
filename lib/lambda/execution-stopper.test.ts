import { SFNClient, StopExecutionCommand, ExecutionDoesNotExist } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { sfnExecutionStopper } from './execution-stopper.js';

const ARN = 'arn:aws:states:eu-west-1:123456789012:execution:serverless-step-runner-dev-build:gh-app-aaaaaaa-1';

describe('StopExecution for a superseded build', () => {
  const sfn = mockClient(SFNClient);
  afterEach(() => sfn.reset());

  it("stops the execution with the error and cause the console then shows", async () => {
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });
    await sfnExecutionStopper(new SFNClient({ region: 'eu-west-1' })).stop(ARN, 'Superseded', 'Superseded by bbbbbbb (execution gh-app-bbbbbbb-2)');
    expect(sfn.commandCalls(StopExecutionCommand).map((call) => call.args[0].input)).toEqual([
      { executionArn: ARN, error: 'Superseded', cause: 'Superseded by bbbbbbb (execution gh-app-bbbbbbb-2)' },
    ]);
  });

  it('leaves alone an execution that no longer exists, and says any other refusal', async () => {
    const stopper = sfnExecutionStopper(new SFNClient({ region: 'eu-west-1' }));
    sfn.on(StopExecutionCommand).rejects(new ExecutionDoesNotExist({ message: 'Execution Does Not Exist', $metadata: {} }));
    await expect(stopper.stop(ARN, 'Superseded', 'c')).resolves.toBeUndefined();
    sfn.on(StopExecutionCommand).rejects(Object.assign(new Error('not authorized to perform: states:StopExecution'), { name: 'AccessDeniedException' }));
    await expect(stopper.stop(ARN, 'Superseded', 'c')).rejects.toThrow(/states:StopExecution/);
  });
});
