/** A step's tests on the console page: the counts, the problems, and the failed tests' table, every text escaped. */
import { testsSection } from './tests-section.js';

describe("a step's tests on the console page", () => {
  it('shows the counts and a row per failed test with where it failed and its message as written', () => {
    const page = testsSection({
      passed: 1,
      failed: 3,
      skipped: 1,
      durationMs: 1250,
      failures: [
        { name: 'renders <App/>', classname: 'renders <App/>', file: 'src/App.test.js', line: 12, message: 'Expected: "<div>"\nReceived: "<span>"' },
        { name: 'test', classname: 'surefire.MyTest', file: 'src/test/java/surefire/MyTest.java', line: 13, message: 'this is different message' },
      ],
      problems: ['test-results/broken.xml is not well-formed XML (line 1: char \'P\' is not expected)'],
    }).toString();
    expect(page).toContain('<h4>Tests</h4>');
    expect(page).toContain('<span class="tests-passed">1 passed</span>, <span class="tests-failed">3 failed</span>, 1 skipped <span class="muted">(1.3 s)</span></p>');
    expect(page).toContain('<td>renders &lt;App/&gt;</td><td><code>src/App.test.js:12</code></td><td><pre class="test-message">Expected: &quot;&lt;div&gt;&quot;\nReceived: &quot;&lt;span&gt;&quot;</pre></td>');
    expect(page).toContain('<td><span class="muted">surefire.MyTest</span> test</td>');
    expect(page).toContain('⚠ test-results/broken.xml is not well-formed XML (line 1: char &#39;P&#39; is not expected)');
    expect(page).toContain('1 more failed test not listed');
  });

  it('is nothing for a step without reports', () => {
    expect(testsSection(undefined).toString()).toBe('');
  });
});
