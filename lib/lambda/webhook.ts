import { SFNClient } from '@aws-sdk/client-sfn';
import { gitHubChangeSource } from '../forge/change-source.js';
import { stepFunctionsStarter } from '../forge/execution-starter.js';
import type { GitHubCredentials } from '../forge/github-app.js';
import { gitHubPipelineSource } from '../forge/pipeline-source.js';
import { gitHubRefHeadSource } from '../forge/ref-head.js';
import { createWebhookHandler, staticSecrets, type SecretsMiddleware } from '../forge/webhook-handler.js';
import type { WebhookSecrets } from '../forge/webhook.js';
import { logger } from '../workflow/lambda-task.js';
import { stepFunctionsApprovalDesk } from './approval-desk.js';
import { lambdaGitHubApp, type LambdaGitHubAppOptions } from './github-app.js';
import { secretIds, secretsMiddleware, secretsWithOptionalToken } from './secrets.js';
import { EnvNames, reader } from './settings.js';

/**
 * How long each GitHub call of a delivery may run. The answer no longer waits for them past
 * WEBHOOK_LOOKUP_BUDGET_MS (below); these limits end the calls left behind, so that none outlives
 * the function's 10 s timeout (serverless.yml, GitHub's own limit) into the next invocation.
 */
export const WEBHOOK_GITHUB_CALL_MS = { installationToken: 3_000, pipelineFile: 4_000, changes: 1_500 } as const;

/**
 * And all of a delivery's GitHub calls hold the answer this long at most (WebhookDeps.lookupBudgetMs):
 * what GitHub has not answered by then, PrepareBuild reads (DeferredLookup). GitHub answers these
 * calls in a few hundred milliseconds when it is well, so they almost always fit, and the answer
 * says what they say; when GitHub is slow, the answer still comes within about 1.5 s warm, well
 * inside GitHub's 10 s even from a cold start (bench/webhook-latency.ts). The calls' own limits
 * above still end the work left behind.
 */
export const WEBHOOK_LOOKUP_BUDGET_MS = 1_200;

/** The pipeline is read at once; a token with less left than this is not reused. */
const PIPELINE_TOKEN_REUSE_SECONDS = 5 * 60;

/**
 * POST /webhook (GitHub) and POST /webhook/generic behind API Gateway (HTTP API, payload v2), with
 * secrets from Secrets Manager and builds started in Step Functions; a check run's Approve or
 * Reject answers the waiting step's task (approval-desk.ts). A kind of webhook whose secret
 * id is not set is answered 404 (not configured); the state machine is required at start. A GitHub
 * delivery's pipeline file is read with an installation token of the deployment's GitHub App when
 * the delivery came through it, else with the deployment's token, else without one. `app` and
 * `lookupBudgetMs` are for tests.
 */
export function createLambdaWebhookHandler(
  env: NodeJS.ProcessEnv = process.env,
  sfn: SFNClient = new SFNClient({}),
  app: LambdaGitHubAppOptions = {},
  lookupBudgetMs: number = WEBHOOK_LOOKUP_BUDGET_MS,
) {
  const read = reader(env);
  const stateMachineArn = read.required(EnvNames.stateMachineArn);
  const appSettings = read.gitHubApp();
  read.check();
  const ids = secretIds(env, ['githubWebhookSecret', 'genericWebhookSecret', 'githubToken']);
  const apiUrl = env[EnvNames.githubApiUrl];
  const api = { ...(apiUrl ? { baseUrl: apiUrl } : {}), timeoutMs: WEBHOOK_GITHUB_CALL_MS.pipelineFile };
  // One attempt: the webhook has 10 s, and GitHub's delivery page offers a redelivery.
  const credentials: GitHubCredentials = appSettings
    ? {
        app: lambdaGitHubApp(appSettings, {
          ...api,
          timeoutMs: WEBHOOK_GITHUB_CALL_MS.installationToken,
          attempts: 1,
          reuseSeconds: PIPELINE_TOKEN_REUSE_SECONDS,
          ...app,
        }),
      }
    : {};
  return createWebhookHandler({
    logger,
    secrets: webhookSecrets(ids, appSettings !== undefined),
    deps: {
      starter: stepFunctionsStarter(sfn, stateMachineArn),
      pipelines: (s) => gitHubPipelineSource({ ...credentials, ...(s.githubToken ? { token: s.githubToken } : {}) }, api),
      // A manual run (`step-runner trigger`) names a ref: its head commit, read with the pipeline's credentials.
      refHeads: (s) => gitHubRefHeadSource({ ...credentials, ...(s.githubToken ? { token: s.githubToken } : {}) }, api),
      changes: (s) => gitHubChangeSource({ ...credentials, ...(s.githubToken ? { token: s.githubToken } : {}) }, { ...(apiUrl ? { baseUrl: apiUrl } : {}), budgetMs: WEBHOOK_GITHUB_CALL_MS.changes }),
      log: logger,
      buildForkPullRequests: env[EnvNames.buildForkPullRequests] === 'true',
      ...(appSettings ? { gitHubAppId: appSettings.appId } : {}),
      // A check run's Approve and Reject (only an App's check runs have buttons), and a signed generic approval.
      approvals: { desk: stepFunctionsApprovalDesk(sfn, stateMachineArn), credentials, api },
      lookupBudgetMs,
    },
  });
}

/** With a GitHub App the deployment's token is a fallback that may not exist (secretsWithOptionalToken). */
function webhookSecrets(ids: Partial<Record<keyof WebhookSecrets, string>>, app: boolean): SecretsMiddleware {
  if (Object.keys(ids).length === 0) return staticSecrets({});
  return (app ? secretsWithOptionalToken(ids) : secretsMiddleware(ids)) as unknown as SecretsMiddleware;
}
