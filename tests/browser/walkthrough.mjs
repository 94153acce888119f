// The browser test of `litindex serve`: headless Chromium (Debian's, through
// playwright-core, no browser download) walks the page the way a person would.
// Run by tests/integration/serve/browser.rs, which starts the real binary
// with --allow-writes on a real index and checks the index afterwards.
//
//   node walkthrough.mjs URL OUT_DIR
//
// Screenshots and the downloaded BibTeX go to OUT_DIR. Exit 0: every step
// passed; otherwise the failed assertion is printed and the exit code is 1.
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [base, out] = process.argv.slice(2);
assert.ok(base && out, 'usage: node walkthrough.mjs URL OUT_DIR');
mkdirSync(out, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.LITINDEX_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const problems = [];
try {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1100, height: 1000 } });
  const page = await context.newPage();
  // A script that ran (the <script> paper's title, say) would show up here.
  page.on('dialog', async (d) => { problems.push(`a dialog opened: ${d.message()}`); await d.dismiss(); });
  page.on('pageerror', (e) => problems.push(`page error: ${e}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });

  // 1. Search through the form.
  await page.goto(base);
  await page.fill('#q', 'sparse attention');
  await page.click('form.search button[type=submit]');
  await page.waitForSelector('li.hit');
  const searchUrl = page.url();
  const hits = await page.locator('li.hit').count();
  assert.ok(hits >= 5, `expected at least 5 hits, got ${hits}`);
  const bars = await page.locator('li.hit svg.bar rect.part').count();
  assert.ok(bars >= hits, `every hit has a score bar part (${bars} parts for ${hits} hits)`);
  assert.ok(await page.locator('li.hit .snippet mark').count() > 0, 'the evidence sentences highlight the query terms');
  const titles = await page.locator('li.hit .title a').allTextContents();
  assert.ok(titles.includes('<script>alert(1)</script> sparse attention'),
    `the <script> paper is listed with its title as text: ${JSON.stringify(titles)}`);
  await page.screenshot({ path: join(out, 'search.png'), fullPage: false });

  // 1b. The next page: a link with the offset, its hits numbered on from 21, none of page 1's.
  const firstIds = await page.locator('li.hit .meta .id').allTextContents();
  await page.click('nav.pages a[rel=next]');
  await page.waitForSelector('li.hit');
  assert.match(page.url(), /[?&]offset=20(&|$)/);
  assert.equal(await page.locator('ol.hits').getAttribute('start'), '21');
  const nextIds = await page.locator('li.hit .meta .id').allTextContents();
  assert.ok(nextIds.length > 0 && nextIds.every((i) => !firstIds.includes(i)), `page 2 holds other papers: ${nextIds}`);
  await page.goto(searchUrl);

  // 2. Click through to the first hit that is not the <script> paper.
  const target = page.locator('li.hit').filter({ hasNotText: '<script>' }).first();
  const id = (await target.locator('.meta .id').textContent()).trim();
  const title = (await target.locator('.title a').textContent()).trim();
  await target.locator('.title a').click();
  await page.waitForSelector('article.paper h1');
  assert.equal((await page.locator('article.paper h1').textContent()).trim(), title);
  assert.equal((await page.locator('table.meta td.id').textContent()).trim(), id);
  const nodes = await page.locator('svg.neighbourhood circle.node').count();
  assert.ok(nodes > 1, `the neighbourhood shows the paper and its neighbours (${nodes} nodes)`);
  assert.equal(await page.locator('svg.neighbourhood circle.hop0').count(), 1, 'one paper in the middle');
  await page.screenshot({ path: join(out, 'paper.png'), fullPage: true });

  // 3. Download its BibTeX.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('a.export')]);
  const bib = join(out, 'paper.bib');
  await download.saveAs(bib);
  const text = readFileSync(bib, 'utf8');
  assert.match(text, /^@(misc|article)\{[a-z0-9]+,/, `a BibTeX entry with a citation key: ${text.slice(0, 200)}`);
  assert.ok(text.includes(`title = {{${title}}}`), `the entry is the paper's, "${title}": ${text.slice(0, 300)}`);

  // 4. Mark it excluded with the button; the page shows the mark.
  await page.click('button.mark.exclude');
  await page.waitForSelector('.marks .label.exclude');
  await page.screenshot({ path: join(out, 'paper-excluded.png'), fullPage: false });

  // 5. The same search no longer lists it...
  await page.goto(searchUrl);
  await page.waitForSelector('li.hit');
  const ids = (await page.locator('li.hit .meta .id').allTextContents()).map((s) => s.trim());
  assert.ok(!ids.includes(id), `${id} is gone from the results: ${ids}`);
  assert.match(await page.locator('p.note').first().textContent(), /excluded papers not shown/);

  // 6. ...and "show excluded" lists it, flagged.
  await page.check('input[name=show_excluded]');
  await page.click('form.search button[type=submit]');
  await page.waitForSelector('li.hit.excluded');
  const flagged = page.locator('li.hit.excluded').filter({ hasText: id });
  assert.equal(await flagged.count(), 1, `${id} is shown flagged with show excluded`);
  assert.equal((await flagged.locator('.flag').textContent()).trim(), 'excluded');
  await page.screenshot({ path: join(out, 'search-excluded.png'), fullPage: false });

  // 6b. Facets: each hit cited-by count; a year facet adds the filter.
  await page.goto(searchUrl);
  await page.waitForSelector('aside.facets');
  assert.ok(await page.locator('li.hit .cited').count() >= 5, 'every hit says how often the index cites it');
  const yearLink = page.locator('aside.facets .years a').first();
  await yearLink.click();
  await page.waitForSelector('li.hit');
  assert.match(page.url(), /[?&]year=\d{4}(&|$)/, `a year facet adds year=: ${page.url()}`);
  const years = await page.locator('li.hit .meta').allTextContents();
  const year = new URL(page.url()).searchParams.get('year');
  assert.ok(years.every((m) => m.includes(year)), `every hit is of ${year}`);
  await page.goto(searchUrl);
  const author = page.locator('aside.facets .authors a').first();
  const name = (await author.textContent()).trim();
  await author.click();
  await page.waitForSelector('li.hit');
  assert.equal(new URL(page.url()).searchParams.get('author'), name, 'an author facet adds author=');
  await page.goto(searchUrl);
  await page.screenshot({ path: join(out, 'search-facets.png'), fullPage: false });

  // 6c. The mark buttons on a hit: favorite it from the list, back on the list, the mark shown as active.
  const second = page.locator('li.hit').filter({ hasNotText: '<script>' }).nth(1);
  const favId = await second.getAttribute('data-id');
  await second.locator('button.mark.favorite').click();
  await page.waitForSelector(`li.hit[data-id="${favId}"] button.mark.favorite.active`);
  assert.equal(new URL(page.url()).searchParams.get('q'), 'sparse attention', 'back on the same search');
  assert.equal(await page.locator(`li.hit[data-id="${favId}"] .label.favorite`).count(), 1);

  // 6d. The marks page: by label, the favorite listed, exported as RIS.
  await page.goto(`${base}marks?label=favorite`);
  await page.waitForSelector('ol.marked li');
  const marked = await page.locator('ol.marked li .meta .id').allTextContents();
  assert.deepEqual(marked.map((s) => s.trim()), [favId], `the favorites: ${marked}`);
  const [ris] = await Promise.all([page.waitForEvent('download'), page.click('a.export[data-format=ris]')]);
  const risPath = join(out, 'favorites.ris');
  await ris.saveAs(risPath);
  assert.match(readFileSync(risPath, 'utf8'), /^TY {2}- /, 'an RIS record');
  await page.screenshot({ path: join(out, 'marks.png'), fullPage: false });
  // Unmark from the marks page: the list empties.
  await page.click('ol.marked button.mark.favorite.active');
  await page.waitForSelector('p.summary');
  assert.equal(await page.locator('ol.marked li').count(), 0, 'unmarked: no favorite left');

  // 6e. An error page keeps the search box.
  const missing = await page.goto(`${base}paper?id=no-such-paper`);
  assert.equal(missing.status(), 404);
  assert.equal(await page.locator('form.search input#q').count(), 1, 'the 404 page has the search box');
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes('404')));

  assert.deepEqual(problems, [], 'no script ran, no page error, no failed load');

  // 7. A bad query shows its error on the page (the browser logs its 400).
  const bad = await page.goto(`${base}?q=${encodeURIComponent('year:20x9')}`);
  assert.equal(bad.status(), 400);
  assert.match(await page.locator('p.error').textContent(), /20x9/);

  assert.ok(!problems.some((p) => p.startsWith('a dialog')), 'no script ran');
  console.log(JSON.stringify({ ok: true, hits, excluded: id, nodes, screenshots: out }));
} finally {
  await browser.close();
}
