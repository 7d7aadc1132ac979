/**
 * The order test files start in. Jest runs the slowest first when its cache knows their times
 * (a developer's machine); CI starts from a clean clone with no such cache, where jest falls back to
 * file size, and a large table of unit tests can then start before a slow build file that ends the
 * run alone on one core. Without timings, the files of the projects that start clusters, servers
 * and programs go first (e2e, then integration, each largest first), and the unit files, short
 * and many, fill the gaps at the end.
 */
import Sequencer from '@jest/test-sequencer';

const RANK = { e2e: 0, integration: 1, unit: 2 };

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const timed = tests.every((test) => this.time(test) != null);
    if (timed) return super.sort(tests);
    const rank = (test) => RANK[test.context.config.displayName?.name] ?? 1;
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    return [...tests].sort((a, b) => rank(a) - rank(b) || size(b) - size(a));
  }
}

export default SlowFirstSequencer;
