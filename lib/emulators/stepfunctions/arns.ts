/** Where a local execution would live on AWS; ReportStatus links to it. */
export function localExecutionArn(name: string): string {
  return `arn:aws:states:local:000000000000:execution:step-runner-local:${name}`;
}

/** A Lambda ARN in the account and region no real function has: the local executor binds by state name. */
export const localLambdaArn = (functionId: string) => `arn:aws:lambda:us-east-1:000000000000:function:${functionId}`;
