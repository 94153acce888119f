// The screening page in headless Chromium: one candidate at a time, the
// model's terms marked, the include / exclude buttons and the skip link with
// their access keys (i, e, s; pressed by the browser's own Alt+key, which
// synthetic key events do not reach, so the attributes are checked). Run by
// tests/integration/screen.rs against `litindex serve --allow-writes` on a
// review with decisions; it checks the index afterwards.
//
//   node screen.mjs URL REVIEW OUT_DIR
//
// Prints a JSON line {"included": ID, "skipped": ID, "excluded": ID}.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [base, review, out] = process.argv.slice(2);
assert.ok(base && review && out, 'usage: node screen.mjs URL REVIEW OUT_DIR');
mkdirSync(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.LITINDEX_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const problems = [];
try {
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 1000 } })).newPage();
  page.on('pageerror', (e) => problems.push(`page error: ${e}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  const screened = async () => Number((await page.locator('#progress').textContent()).trim().split(' ')[0]);
  const current = async () => page.locator('#candidate').getAttribute('data-id');

  await page.goto(`${base}screen`);
  await page.click(`a:text-is("${review}")`);
  await page.waitForSelector('#candidate');
  const before = await screened();
  assert.ok(await page.locator('#candidate mark').count() > 0, 'the model\'s top terms are marked');
  assert.ok(await page.locator('ul.why li').count() > 0, 'the page says why');
  assert.match(await page.locator('ul.why li').first().textContent(), /^model: (all features|text only)/,
    'the page names the model that ranked the candidate');
  await page.screenshot({ path: join(out, 'screen.png') });

  for (const [id, key] of [['include', 'i'], ['exclude', 'e'], ['skip', 's']]) {
    assert.equal(await page.locator(`#${id}`).getAttribute('accesskey'), key, `#${id} has access key ${key}`);
  }
  // Include the first candidate.
  const included = await current();
  await Promise.all([page.waitForNavigation(), page.click('#include')]);
  assert.equal(await screened(), before + 1, 'the include is counted');
  const second = await current();
  assert.notEqual(second, included, 'the next candidate is another');

  // Skip it (nothing written), then exclude the one after with the button.
  await Promise.all([page.waitForNavigation(), page.click('#skip')]);
  assert.match(page.url(), /[?&]skip=1(&|$)/);
  assert.equal(await screened(), before + 1, 'a skip writes nothing');
  const excluded = await current();
  assert.notEqual(excluded, second);
  await Promise.all([page.waitForNavigation(), page.click('#exclude')]);
  assert.equal(await screened(), before + 2, 'the exclude is counted');
  await page.screenshot({ path: join(out, 'screen-after.png') });
  assert.deepEqual(problems, []);
  console.log(JSON.stringify({ included, skipped: second, excluded }));
} finally {
  await browser.close();
}
