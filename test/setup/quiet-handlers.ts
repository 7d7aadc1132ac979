/**
 * The handlers' Powertools output is meant for CloudWatch, not for jest's: the Logger's JSON lines
 * and the metrics' EMF documents (`_aws`) stay off in every test file unless the file asks for them
 * (test/fixtures/handler-logs-shown.ts). Set anew for each file, since a file that shows them sets
 * them in the worker's process for itself.
 * - POWERTOOLS_LOG_LEVEL: the level lib/workflow/lambda-task.ts's logger starts at (read when the
 *   module is loaded, once per test file) and goes back to at every warm invocation:
 *   injectLambdaContext calls refreshSampleRateCalculation, which sets the initial level again
 *   (aws-powertools/powertools-lambda-typescript#3644, #3815). A test's own
 *   logger.setLogLevel('SILENT') is undone by the second invocation, so the level has to be this.
 * - POWERTOOLS_METRICS_DISABLED: Powertools' own switch, read by each Metrics made
 *   (lib/lambda/emf-metrics.ts makes one per record).
 */
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
// The AWS SDK's NodeVersionSupportWarning on Node 20, as the CLI silences it (lib/cli/main.ts): 18
// copies of the same nine lines in a CI log, none of them about a test.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
