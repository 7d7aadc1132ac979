/**
 * The CloudWatch dashboard the deployment ships (serverless.yml, MetricsDashboard): the builds'
 * and steps' metrics (lib/workflow/metric-records.ts) per repository. The repositories are not
 * known when the stack is deployed, so every graph is a SEARCH expression over a dimension schema
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/search-expression-syntax.html):
 * `{"NAMESPACE",Repository}` finds each repository's metric, `{"NAMESPACE",Repository,Error}` each
 * repository's per Error; a new repository shows up with its first build. Pure: the body as an
 * object, its region a token lib/deploy/dashboard.cjs replaces with the stack's (AWS::Region).
 */
import { MetricDimensions, type MetricName } from '../workflow/metric-records.js';

/** Where the stack's region goes in the body (each widget must name one). */
export const REGION_TOKEN = '@@AWS::Region@@';

/** One graph: what it shows, and the searches it is drawn from. */
interface Graph {
  title: string;
  /** Each line set: a metric under one dimension schema, with a statistic. */
  searches: { metric: MetricName; byError?: true; stat: string; label: string }[];
  unit: string;
}

/** Five minutes: a build's metrics are one value each, and a shorter period shows mostly gaps. */
const PERIOD_SECONDS = 300;
const WIDTH = 12;
const HEIGHT = 6;

const DASHBOARD_GRAPHS: readonly Graph[] = [
  { title: 'Step queue time by repository (waiting for a node), p90', searches: [{ metric: 'StepQueueTime', stat: 'p90', label: 'queue' }], unit: 'seconds' },
  { title: 'Build duration by repository, p50 and p90', searches: [{ metric: 'BuildDuration', stat: 'p50', label: 'p50' }, { metric: 'BuildDuration', stat: 'p90', label: 'p90' }], unit: 'seconds' },
  // The Average of a 0-or-1 metric: the share of builds that failed. Left as a fraction: a line made
  // by metric math on a SEARCH's lines may lose the dimensions its label names.
  { title: 'Build failure rate by repository (0 to 1)', searches: [{ metric: 'BuildFailure', stat: 'Average', label: 'failure rate' }], unit: 'failed / builds' },
  { title: 'Failed builds by Error and repository', searches: [{ metric: 'BuildFailure', byError: true, stat: 'Sum', label: 'failed' }], unit: 'builds' },
  { title: 'Failed steps by Error and repository', searches: [{ metric: 'StepFailure', byError: true, stat: 'Sum', label: 'failed' }], unit: 'steps' },
  { title: 'Step pending and image pull time by repository, average', searches: [{ metric: 'StepPendingTime', stat: 'Average', label: 'pending' }, { metric: 'StepPullTime', stat: 'Average', label: 'pulling' }], unit: 'seconds' },
  { title: 'Builds by repository', searches: [{ metric: 'BuildFailure', stat: 'SampleCount', label: 'builds' }], unit: 'builds' },
  { title: 'Build cost by repository (USD)', searches: [{ metric: 'BuildCost', stat: 'Sum', label: 'cost' }], unit: 'USD' },
];

/** The dimension names a search's schema names besides the namespace. */
function searchDimensions(search: Graph['searches'][number]): string[] {
  return search.byError ? [MetricDimensions.repository, MetricDimensions.error] : [MetricDimensions.repository];
}

/** The dashboard's body (DashboardBody is this, as JSON text), for the metrics of `namespace`. */
export function metricsDashboard(namespace: string, region: string = REGION_TOKEN): { widgets: object[] } {
  const widgets = DASHBOARD_GRAPHS.map((graph, index) => ({
    type: 'metric',
    x: (index % 2) * WIDTH,
    y: Math.floor(index / 2) * HEIGHT,
    width: WIDTH,
    height: HEIGHT,
    properties: {
      title: graph.title,
      region,
      view: 'timeSeries',
      stacked: false,
      period: PERIOD_SECONDS,
      yAxis: { left: { label: graph.unit, showUnits: false, min: 0 } },
      metrics: graph.searches.map((search, i) => {
        const schema = [JSON.stringify(namespace), ...searchDimensions(search)].join(',');
        const expression = `SEARCH('{${schema}} MetricName="${search.metric}"', '${search.stat}', ${PERIOD_SECONDS})`;
        // Dynamic labels (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/graph-dynamic-labels.html): one line per repository (and Error).
        const label = [...searchDimensions(search).map((name) => `\${PROP('Dim.${name}')}`), search.label].join(' ');
        return [{ expression, label, id: `e${i}` }];
      }),
    },
  }));
  return { widgets };
}
