/**
 * What the runtime holds open on the daemon (a container's wait and attach, an exec's hijacked
 * socket), so that close() can end them all and leave nothing to keep the process alive.
 */
export class OpenHandles {
  private readonly handles = new Set<() => void>();
  private closedFlag = false;

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Registers how to end a handle; the returned function forgets it once it ended by itself. */
  add(end: () => void): () => void {
    if (this.closedFlag) {
      end();
      return () => {};
    }
    this.handles.add(end);
    return () => this.handles.delete(end);
  }

  closeAll(): void {
    this.closedFlag = true;
    for (const end of [...this.handles]) end();
    this.handles.clear();
  }
}
