/** Simulated time for the cost benchmark: it only moves when the benchmark moves it. */
export class SimulatedClock {
  private millis: number;

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.millis = start;
  }

  now(): Date {
    return new Date(this.millis);
  }

  advance(seconds: number): void {
    this.millis += Math.round(seconds * 1000);
  }
}
