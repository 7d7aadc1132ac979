/**
 * One Event, two API versions: the apiserver stores core/v1 Events and serves the same objects
 * as events.k8s.io/v1, converting field by field (pkg/apis/events/v1/conversion.go). What one
 * version has no field for goes to the other's deprecated ones and back: core's source, first and
 * last timestamp and count are events.k8s.io's deprecatedSource, deprecatedFirstTimestamp,
 * deprecatedLastTimestamp and deprecatedCount. So an event the scheduler records through
 * events.k8s.io reads through core/v1 with `source: {}`, null timestamps and no count, and a
 * kubelet event reads through events.k8s.io with a null eventTime. Keys are in the order Go
 * writes the struct fields; empty `omitempty` fields are left out as Go leaves them out.
 */
import type { CoreEvent, EventsV1Event } from './objects.js';

export const EVENTS_GROUP = 'events.k8s.io';

/** events.k8s.io/v1 -> core/v1, as a write through the events API is stored. */
export function toCoreEvent(event: EventsV1Event): CoreEvent {
  return {
    kind: 'Event',
    apiVersion: 'v1',
    metadata: event.metadata,
    involvedObject: { ...event.regarding, kind: event.regarding.kind ?? '', name: event.regarding.name ?? '' },
    reason: event.reason ?? '',
    message: event.note ?? '',
    source: { ...event.deprecatedSource },
    firstTimestamp: event.deprecatedFirstTimestamp ?? null,
    lastTimestamp: event.deprecatedLastTimestamp ?? null,
    ...(event.deprecatedCount ? { count: event.deprecatedCount } : {}),
    type: event.type === 'Warning' ? 'Warning' : 'Normal',
    eventTime: event.eventTime ?? null,
    ...(event.series ? { series: { ...event.series } } : {}),
    ...(event.action ? { action: event.action } : {}),
    ...(event.related ? { related: { ...event.related } } : {}),
    reportingComponent: event.reportingController ?? '',
    reportingInstance: event.reportingInstance ?? '',
  };
}

/** core/v1 -> events.k8s.io/v1, as the apiserver answers a read through the events API. */
export function toEventsV1(event: CoreEvent): EventsV1Event {
  return {
    kind: 'Event',
    apiVersion: `${EVENTS_GROUP}/v1`,
    metadata: event.metadata,
    eventTime: event.eventTime ?? null,
    ...(event.series ? { series: { ...event.series } } : {}),
    ...(event.reportingComponent ? { reportingController: event.reportingComponent } : {}),
    ...(event.reportingInstance ? { reportingInstance: event.reportingInstance } : {}),
    ...(event.action ? { action: event.action } : {}),
    ...(event.reason ? { reason: event.reason } : {}),
    regarding: { ...event.involvedObject },
    ...(event.related ? { related: { ...event.related } } : {}),
    ...(event.message ? { note: event.message } : {}),
    ...(event.type ? { type: event.type } : {}),
    deprecatedSource: { ...event.source },
    deprecatedFirstTimestamp: event.firstTimestamp ?? null,
    deprecatedLastTimestamp: event.lastTimestamp ?? null,
    ...(event.count ? { deprecatedCount: event.count } : {}),
  };
}

/**
 * The field labels events.k8s.io/v1 accepts (pkg/registry/core/event/strategy.go with the events
 * group's label conversions), matched against the object as that version spells it.
 */
export const EVENTS_V1_FIELD_LABELS = [
  'regarding.kind',
  'regarding.namespace',
  'regarding.name',
  'regarding.uid',
  'regarding.apiVersion',
  'regarding.resourceVersion',
  'regarding.fieldPath',
  'reason',
  'reportingController',
  'type',
];
