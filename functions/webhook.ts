import { SFNClient } from '@aws-sdk/client-sfn';
import secretsManager from '@middy/secrets-manager';
import { ForgeEnvNames, SECRETS_CACHE_MS, secretIds, secretsCacheKey } from '../lib/forge/config.js';
import { stepFunctionsStarter, type ExecutionStarter } from '../lib/forge/execution-starter.js';
import { gitHubApi } from '../lib/forge/github-api.js';
import { repositoryPipelineSource } from '../lib/forge/pipeline-source.js';
import { createWebhookHandler, staticSecrets, type SecretsMiddleware } from '../lib/forge/webhook-handler.js';
import { logger } from '../lib/workflow/lambda-task.js';

/**
 * POST /webhook (GitHub) and POST /webhook/generic behind API Gateway (HTTP API, payload v2).
 * Built from the environment; tests call createLambdaWebhookHandler with their own.
 */
export function createLambdaWebhookHandler(env: NodeJS.ProcessEnv = process.env, sfn: SFNClient = new SFNClient({})) {
  const ids = secretIds(env, ['githubWebhookSecret', 'genericWebhookSecret', 'githubToken']);
  const secrets: SecretsMiddleware =
    Object.keys(ids).length > 0
      ? (secretsManager({
          fetchData: ids,
          setToContext: true,
          cacheKey: secretsCacheKey(ids),
          cacheExpiry: SECRETS_CACHE_MS,
        }) as unknown as SecretsMiddleware)
      : staticSecrets({});
  const stateMachineArn = env[ForgeEnvNames.stateMachineArn];
  // Checked when a build is to start, not at load time: a misconfigured function still answers
  // pings and refusals, and its logs say what is missing.
  const starter: ExecutionStarter = stateMachineArn
    ? stepFunctionsStarter(sfn, stateMachineArn)
    : {
        start: async () => {
          throw new Error(`${ForgeEnvNames.stateMachineArn} is not set: no execution can be started`);
        },
      };
  const apiUrl = env[ForgeEnvNames.githubApiUrl];
  return createWebhookHandler({
    logger,
    secrets,
    deps: {
      starter,
      pipelines: (s) => repositoryPipelineSource(gitHubApi({ ...(apiUrl ? { baseUrl: apiUrl } : {}), ...(s.githubToken ? { token: s.githubToken } : {}) })),
      log: logger,
      buildForkPullRequests: env[ForgeEnvNames.buildForkPullRequests] === 'true',
    },
  });
}

export const handler = createLambdaWebhookHandler();
