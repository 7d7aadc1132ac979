import { SFNClient } from '@aws-sdk/client-sfn';
import { gitHubChangeSource } from '../forge/change-source.js';
import { stepFunctionsStarter } from '../forge/execution-starter.js';
import type { GitHubCredentials } from '../forge/github-app.js';
import { gitHubPipelineSource } from '../forge/pipeline-source.js';
import { createWebhookHandler, staticSecrets, type SecretsMiddleware } from '../forge/webhook-handler.js';
import type { WebhookSecrets } from '../forge/webhook.js';
import { logger } from '../workflow/lambda-task.js';
import { lambdaGitHubApp, type LambdaGitHubAppOptions } from './github-app.js';
import { secretIds, secretsMiddleware, secretsWithOptionalToken } from './secrets.js';
import { EnvNames, reader } from './settings.js';

/**
 * How long each GitHub call of a delivery may take: GitHub gives up on a delivery after 10 s, as
 * the function's own timeout does (serverless.yml), and the answer must be the handler's own
 * (502 ForgeUnavailable naming the call), not a timeout. Together they leave 3 s for the secrets,
 * the signature and StartExecution. What a change touches (for `when.paths`) and a pull request's
 * head commit message (for `[skip ci]`) get 1.5 s between them, beside the pipeline file's read:
 * past it they are unknown (every step runs), never a failed delivery.
 */
export const WEBHOOK_GITHUB_CALL_MS = { installationToken: 3_000, pipelineFile: 4_000, changes: 1_500 } as const;

/** The pipeline is read at once; a token with less left than this is not reused. */
const PIPELINE_TOKEN_REUSE_SECONDS = 5 * 60;

/**
 * POST /webhook (GitHub) and POST /webhook/generic behind API Gateway (HTTP API, payload v2), with
 * secrets from Secrets Manager and builds started in Step Functions. A kind of webhook whose secret
 * id is not set is answered 404 (not configured); the state machine is required at start. A GitHub
 * delivery's pipeline file is read with an installation token of the deployment's GitHub App when
 * the delivery came through it, else with the deployment's token, else without one. `app` is for
 * tests.
 */
export function createLambdaWebhookHandler(env: NodeJS.ProcessEnv = process.env, sfn: SFNClient = new SFNClient({}), app: LambdaGitHubAppOptions = {}) {
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
      changes: (s) => gitHubChangeSource({ ...credentials, ...(s.githubToken ? { token: s.githubToken } : {}) }, { ...(apiUrl ? { baseUrl: apiUrl } : {}), budgetMs: WEBHOOK_GITHUB_CALL_MS.changes }),
      log: logger,
      buildForkPullRequests: env[EnvNames.buildForkPullRequests] === 'true',
    },
  });
}

/** With a GitHub App the deployment's token is a fallback that may not exist (secretsWithOptionalToken). */
function webhookSecrets(ids: Partial<Record<keyof WebhookSecrets, string>>, app: boolean): SecretsMiddleware {
  if (Object.keys(ids).length === 0) return staticSecrets({});
  return (app ? secretsWithOptionalToken(ids) : secretsMiddleware(ids)) as unknown as SecretsMiddleware;
}
