/**
 * The embedded cluster's one source of the current time. Everything it writes or reports as a time
 * (creation and deletion timestamps, conditions, container states, events, log lines, pull
 * durations, kubectl's AGE) reads the clock given to startEmbeddedCluster, so a caller that pins
 * it gets consistent objects. Timers (waits, deadlines, grace periods) still run in real time.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
