/**
 * How a control-plane loop (the volume controllers) follows the store. Each change is handled only
 * once the write that made it has reached every watcher: listeners run inside the write, so a write
 * made there at once would reach later listeners before the change that caused it. stop() waits for
 * the work under way, which sees its signal aborted.
 */
import type { ObjectStore, StoreEvent } from './store.js';

export interface Controller {
  stop(): Promise<void>;
}

type ChangeHandler = (event: StoreEvent, signal: AbortSignal) => Promise<void> | void;

export function startController(store: ObjectStore, handle: ChangeHandler): Controller {
  const stopping = new AbortController();
  const pending = new Set<Promise<void>>();
  const unsubscribe = store.subscribe((event) => {
    const work = Promise.resolve()
      .then(() => (stopping.signal.aborted ? undefined : handle(event, stopping.signal)))
      .catch((error: unknown) => {
        if ((error as Error)?.name !== 'AbortError') throw error;
      })
      .finally(() => pending.delete(work));
    pending.add(work);
  });
  return {
    stop: async () => {
      unsubscribe();
      stopping.abort();
      await Promise.all([...pending]);
    },
  };
}
