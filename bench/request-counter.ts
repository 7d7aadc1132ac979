/** Counts Kubernetes API requests at the embedded cluster's HTTP layer (its fault-injection hook). */
import type { FaultInjector, FaultRequest } from '../lib/emulators/kubernetes/index.js';

export interface RequestCounter {
  hook: FaultInjector;
  count(): number;
  /** Requests seen since the last `mark()`, and a new mark. */
  sinceMark(): FaultRequest[];
}

export function requestCounter(): RequestCounter {
  const seen: FaultRequest[] = [];
  let mark = 0;
  return {
    hook: (request) => {
      seen.push(request);
      return undefined;
    },
    count: () => seen.length,
    sinceMark: () => {
      const requests = seen.slice(mark);
      mark = seen.length;
      return requests;
    },
  };
}
