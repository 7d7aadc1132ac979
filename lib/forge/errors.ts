/**
 * Why a webhook request was refused. Each class carries the HTTP status the sender sees and, as
 * `cause`, which part of lib/forge raised it (the way @middy/util errors name their package), so a
 * log line says where a refusal came from without a stack trace. Messages are written for the
 * person reading GitHub's "Recent deliveries" page: they never contain a secret or the body.
 */
import type { ProblemReport } from '../pipeline/index.js';

export const WEBHOOK_ERROR_PACKAGE = 'serverless-step-runner/forge';

export interface RaisedBy {
  package: typeof WEBHOOK_ERROR_PACKAGE;
  module: string;
}

export abstract class WebhookError extends Error {
  abstract readonly statusCode: number;
  /** Safe to show the sender: every WebhookError message is written to be. */
  readonly expose = true;
  declare readonly cause: RaisedBy;

  constructor(message: string, module: string) {
    super(message, { cause: { package: WEBHOOK_ERROR_PACKAGE, module } satisfies RaisedBy });
  }

  /** The JSON body of the answer. */
  toJSON(): { error: string; message: string } {
    return { error: this.name, message: this.message };
  }
}

export class RouteNotFound extends WebhookError {
  override readonly name = 'RouteNotFound';
  readonly statusCode = 404;
}

export class MethodNotAllowed extends WebhookError {
  override readonly name = 'MethodNotAllowed';
  readonly statusCode = 405;
}

/** The deployment has no secret for this kind of webhook, so no request of that kind can be trusted. */
export class WebhookNotConfigured extends WebhookError {
  override readonly name = 'WebhookNotConfigured';
  readonly statusCode = 404;
}

export class MissingSignature extends WebhookError {
  override readonly name = 'MissingSignature';
  readonly statusCode = 401;
}

export class InvalidSignature extends WebhookError {
  override readonly name = 'InvalidSignature';
  readonly statusCode = 401;
}

export class PayloadTooLarge extends WebhookError {
  override readonly name = 'PayloadTooLarge';
  readonly statusCode = 413;
}

export class UnsupportedMediaType extends WebhookError {
  override readonly name = 'UnsupportedMediaType';
  readonly statusCode = 415;
}

export class MalformedBody extends WebhookError {
  override readonly name = 'MalformedBody';
  readonly statusCode = 400;
}

/** Well-formed JSON that is not the payload this endpoint expects (a field missing or of the wrong type). */
export class InvalidPayload extends WebhookError {
  override readonly name = 'InvalidPayload';
  readonly statusCode = 400;
}

/**
 * The pipeline failed validation; the message is the pipeline error's (file, line, step, field),
 * and `problems` lists every problem, so the sender fixes the file in one go.
 */
export class PipelineRejected extends WebhookError {
  override readonly name: string = 'PipelineRejected';
  readonly statusCode: number = 400;
  constructor(
    message: string,
    module: string,
    /** InvalidPipeline or InvalidImage: the Error the execution would have failed with. */
    readonly pipelineError: string,
    readonly problems: readonly ProblemReport[] = [],
  ) {
    super(message, module);
  }

  override toJSON() {
    return { ...super.toJSON(), pipelineError: this.pipelineError, problems: this.problems };
  }
}

/** The pipeline file is larger than a build's state data can carry (MAX_PIPELINE_BYTES). */
export class PipelineTooLarge extends PipelineRejected {
  override readonly name = 'PipelineTooLarge';
  override readonly statusCode = 413;
}

/** The repository has no pipeline file at the pushed commit (or the token cannot read it). */
export class PipelineNotFound extends WebhookError {
  override readonly name = 'PipelineNotFound';
  readonly statusCode = 422;
}

/** The ref a manual run names has no commit the forge knows (a branch or tag that does not exist). */
export class RefNotFound extends WebhookError {
  override readonly name = 'RefNotFound';
  readonly statusCode = 422;
}

/**
 * The build's inputs do not fit the pipeline's `inputs:` (a required one missing, a value outside
 * its choices, one it does not declare): refused before anything starts, each problem naming its input.
 */
export class InputsRejected extends WebhookError {
  override readonly name = 'InputsRejected';
  readonly statusCode = 422;
  constructor(
    message: string,
    module: string,
    readonly problems: readonly { input: string; message: string }[],
  ) {
    super(message, module);
  }

  override toJSON() {
    return { ...super.toJSON(), problems: this.problems };
  }
}

/** GitHub's API failed in a way a redelivery may fix (5xx, network, rate limit). */
export class ForgeUnavailable extends WebhookError {
  override readonly name = 'ForgeUnavailable';
  readonly statusCode = 502;
}

/** A check run's Approve or Reject for a step that waits for no approval (decided, timed out, or its build ended). */
export class ApprovalNotWaitingHere extends WebhookError {
  override readonly name = 'ApprovalNotWaiting';
  readonly statusCode = 409;
}

/** The person who clicked Approve or Reject may not decide this step (approver-rule.ts); the wait goes on. */
export class ApproverRefused extends WebhookError {
  override readonly name = 'ApproverRefused';
  readonly statusCode = 403;
}
