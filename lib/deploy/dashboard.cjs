'use strict';
/**
 * serverless.yml's MetricsDashboard: `DashboardBody: ${file(lib/deploy/dashboard.cjs):body}`, the
 * body lib/lambda/metrics-dashboard.ts draws from the metrics the runner writes (loaded through
 * tsx), for the deployment's namespace (params.metricsNamespace). CommonJS because the Framework
 * require()s it.
 *
 * DashboardBody is JSON text, whose every widget names its region: the stack's, so the text is
 * joined at deploy time (Fn::Join) around { Ref: AWS::Region }. A dynamic label's `${...}` is
 * split there too, so that no piece of it looks like a variable to the Framework (or to
 * CloudFormation's Fn::Sub, which is not used).
 */
/* global require, module, __filename */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS on purpose (above)
const tsx = require('tsx/cjs/api');

/** The body as CloudFormation's Fn::Join of its text's pieces. */
function dashboardBody(namespace) {
  const { metricsDashboard, REGION_TOKEN } = tsx.require('../lambda/metrics-dashboard.ts', __filename);
  const text = JSON.stringify(metricsDashboard(namespace));
  const pieces = text.split(REGION_TOKEN).flatMap((piece, index) => [
    ...(index > 0 ? [{ Ref: 'AWS::Region' }] : []),
    ...piece.split('${').flatMap((part, i) => (i > 0 ? ['$', `{${part}`] : [part])),
  ]);
  return { 'Fn::Join': ['', pieces.filter((piece) => piece !== '')] };
}

module.exports = {
  dashboardBody,
  body: async ({ resolveVariable }) => dashboardBody(await resolveVariable('param:metricsNamespace')),
};
