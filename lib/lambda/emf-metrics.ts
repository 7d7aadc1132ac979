import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { EmfOutput, MetricsOptions } from '@aws-lambda-powertools/metrics/types';
import { logger } from '../workflow/lambda-task.js';
import { DEFAULT_METRICS_NAMESPACE, type MetricRecord, type MetricsSink, type MetricUnitName } from '../workflow/metric-records.js';

/**
 * Powertools' own setting for the namespace (serverless.yml sets it from params.metricsNamespace);
 * POWERTOOLS_METRICS_DISABLED, Powertools' too, turns the records off.
 */
export const METRICS_NAMESPACE_ENV = 'POWERTOOLS_METRICS_NAMESPACE';

const UNITS: Record<MetricUnitName, (typeof MetricUnit)[keyof typeof MetricUnit]> = {
  Seconds: MetricUnit.Seconds,
  Count: MetricUnit.Count,
  None: MetricUnit.NoUnit,
};

/**
 * The record as one Embedded Metric Format document, made by Powertools Metrics
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html):
 * one metric directive, one dimension set per way of aggregating (addDimensions), the properties as
 * Powertools' metadata (root members no directive names). Its `service` default dimension is
 * cleared: one deployment is one namespace, and a dimension more on every metric would only
 * multiply what CloudWatch bills for.
 */
function recordMetrics(record: MetricRecord, namespace: string, warn: Warn): Metrics {
  const metrics = new Metrics({ namespace, logger: powertoolsLogger(warn) });
  metrics.clearDefaultDimensions();
  metrics.setTimestamp(record.timestamp);
  for (const set of record.dimensionSets) metrics.addDimensions(set);
  for (const [key, value] of Object.entries(record.properties)) metrics.addMetadata(key, value);
  for (const { name, unit, value } of record.metrics) metrics.addMetric(name, UNITS[unit], value);
  return metrics;
}

/** What emfMetricsSink writes for the record, as an object (for the tests, and for reading). */
export function emfDocument(record: MetricRecord, namespace: string = DEFAULT_METRICS_NAMESPACE, warn: Warn = defaultWarn): EmfOutput {
  return recordMetrics(record, namespace, warn).serializeMetrics();
}

/**
 * Writes each record as one line on stdout, as Powertools does (a Console of its own on the
 * process's stdout, so Lambda's JSON log format does not wrap it): CloudWatch Logs extracts the
 * metrics from the function's log group, with no API call and no wait in the function.
 */
export function emfMetricsSink(env: NodeJS.ProcessEnv = process.env, warn: Warn = defaultWarn): MetricsSink {
  const namespace = env[METRICS_NAMESPACE_ENV]?.trim() || DEFAULT_METRICS_NAMESPACE;
  return {
    write: (record) => {
      recordMetrics(record, namespace, warn).publishStoredMetrics();
    },
  };
}

type Warn = (message: string) => void;

const defaultWarn: Warn = (message) => logger.warn(message);

/**
 * Where Powertools says what it finds wrong with a record (a timestamp CloudWatch would drop, say):
 * the function's own log. Less one warning: it warns of any root member two dimension sets name,
 * and a failure's sets both name Repository on purpose, as the specification allows (each
 * DimensionSet's keys "MUST also be members on the root-node"; nothing keeps two sets from naming
 * the same one).
 */
function powertoolsLogger(warn: Warn): NonNullable<MetricsOptions['logger']> {
  const ignore = () => undefined;
  const say = (...content: unknown[]) => {
    const message = content.map(String).join(' ');
    if (!SHARED_DIMENSION_WARNING.test(message)) warn(message);
  };
  return { debug: ignore, info: ignore, warn: say, error: say };
}

const SHARED_DIMENSION_WARNING = /^EMF key ".*" is defined as both a dimension set and dimension set;/;
