import { SFNClient } from '@aws-sdk/client-sfn';
import { stepFunctionsStarter } from '../forge/execution-starter.js';
import { gitHubApi } from '../forge/github-api.js';
import { repositoryPipelineSource } from '../forge/pipeline-source.js';
import { createWebhookHandler, staticSecrets, type SecretsMiddleware } from '../forge/webhook-handler.js';
import { logger } from '../workflow/lambda-task.js';
import { secretIds, secretsMiddleware } from './secrets.js';
import { EnvNames, reader } from './settings.js';

/**
 * POST /webhook (GitHub) and POST /webhook/generic behind API Gateway (HTTP API, payload v2), with
 * secrets from Secrets Manager and builds started in Step Functions. A kind of webhook whose secret
 * id is not set is answered 404 (not configured); the state machine is required at start.
 */
export function createLambdaWebhookHandler(env: NodeJS.ProcessEnv = process.env, sfn: SFNClient = new SFNClient({})) {
  const read = reader(env);
  const stateMachineArn = read.required(EnvNames.stateMachineArn);
  read.check();
  const ids = secretIds(env, ['githubWebhookSecret', 'genericWebhookSecret', 'githubToken']);
  const apiUrl = env[EnvNames.githubApiUrl];
  return createWebhookHandler({
    logger,
    secrets: Object.keys(ids).length > 0 ? (secretsMiddleware(ids) as unknown as SecretsMiddleware) : staticSecrets({}),
    deps: {
      starter: stepFunctionsStarter(sfn, stateMachineArn),
      pipelines: (s) => repositoryPipelineSource(gitHubApi({ ...(apiUrl ? { baseUrl: apiUrl } : {}), ...(s.githubToken ? { token: s.githubToken } : {}) })),
      log: logger,
      buildForkPullRequests: env[EnvNames.buildForkPullRequests] === 'true',
    },
  });
}
