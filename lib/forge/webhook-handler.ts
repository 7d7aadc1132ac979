/**
 * The webhook as a middy handler: the same composition on Lambda and in the local server; only the
 * secrets middleware (Secrets Manager vs. values from the command line) and the deps differ.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { secretText } from './secret-text.js';
import { WebhookError } from './errors.js';
import { handleWebhook, jsonAnswer, type WebhookDeps, type WebhookSecrets } from './webhook.js';

/** The Lambda context once a secrets middleware has run: the secrets as it stored them. */
export type WebhookContext = Context & { [Key in keyof WebhookSecrets]?: unknown };

export type SecretsMiddleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, WebhookContext>;

export function createWebhookHandler(options: { deps: WebhookDeps; secrets: SecretsMiddleware; logger: Logger }) {
  const { deps, logger } = options;
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, WebhookContext>()
    // logEvent: false even if POWERTOOLS_LOGGER_LOG_EVENT is set: the event holds the body and signature.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(httpHeaderNormalizer())
    .use(options.secrets)
    .use(errorAnswer(logger))
    .handler(async (event, context) => handleWebhook(event, secretsOf(context, logger), deps));
}

/** Secrets given as plain values (the local server, tests): set on the context as @middy/secrets-manager does. */
export function staticSecrets(values: WebhookSecrets): SecretsMiddleware {
  return {
    before: (request) => {
      Object.assign(request.context, values);
    },
  };
}

function secretsOf(context: WebhookContext, log: Pick<Logger, 'warn'>): WebhookSecrets {
  const secrets: WebhookSecrets = {};
  for (const key of ['githubWebhookSecret', 'genericWebhookSecret', 'githubToken'] as const) {
    const value = context[key];
    if (value === undefined || value === null || value === '') continue;
    const text = secretText(value);
    if (text) secrets[key] = text;
    else log.warn('A secret has an unusable shape: store a plain string, or JSON with one string value', { secret: key });
  }
  return secrets;
}

/**
 * Refusals become JSON answers with their status and are logged as one line without a stack (they
 * are the sender's problem, and routine). Anything else is ours: logged in full, answered with a
 * 500 that says nothing about the inside.
 */
function errorAnswer(logger: Pick<Logger, 'warn' | 'error'>): SecretsMiddleware {
  return {
    onError: (request) => {
      if (request.response !== undefined && request.response !== null) return;
      const error = request.error;
      if (error instanceof WebhookError) {
        logger.warn('Webhook refused', {
          status: error.statusCode,
          error: error.name,
          reason: error.message,
          raisedBy: `${error.cause.package}/${error.cause.module}`,
        });
        request.response = jsonAnswer(error.statusCode, error.toJSON());
        return;
      }
      logger.error('Webhook failed', error as Error);
      request.response = jsonAnswer(500, {
        error: 'InternalError',
        message: `The webhook could not be handled; redeliver it later. Request id: ${request.context.awsRequestId}.`,
      });
    },
  };
}
