// The page in Chinese: the language switch, the link's lang=zh, the browser's language; the
// Chinese glyphs fetched only when Chinese is chosen; every tab drawn with a glyph for every
// character of the string tables (Module.missingGlyphs() lists code points the atlas lacks).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setUp, tearDown, openPage, frames, clickWidget, screenshot, record } from './harness.mjs';

before(setUp);
after(tearDown);

const FONT = 'llmsize-zh.otf';
const fetched = (responses) => responses.some((r) => r.url().endsWith('/' + FONT));

// Waits until the page shows `code` ("zh": Chinese with its glyphs in the atlas).
async function shown(page, code) {
  await page.waitForFunction((c) => Module.language() === c, code, { timeout: 20000 });
  await frames(page, 2);
}

test('the English page never loads the Chinese glyphs; the switch turns it Chinese and the link says so', async () => {
  const { page, context, problems, responses } = await openPage();
  await frames(page, 5);
  assert.equal(await page.evaluate(() => Module.language()), 'en');
  assert.equal(await page.evaluate(() => Module.missingGlyphs()), '', 'the English table, the switch\'s 中文 included');
  assert.ok(!fetched(responses), 'the English page fetched the Chinese font');
  assert.ok(!(await page.evaluate(() => Module.currentLink())).includes('lang='));

  await clickWidget(page, 'lang');
  await shown(page, 'zh');
  assert.ok(fetched(responses), 'Chinese fetches its glyphs');
  assert.equal(await page.evaluate(() => Module.missingGlyphs()), '');
  const link = await page.evaluate(() => Module.currentLink());
  assert.match(link, /&lang=zh$/);
  await screenshot(page, 'web-zh-switched.png');
  // And back: English, the link without lang.
  await clickWidget(page, 'lang');
  await shown(page, 'en');
  assert.ok(!(await page.evaluate(() => Module.currentLink())).includes('lang='));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a link with lang=zh opens every tab in Chinese, each character with its glyph', async () => {
  const { page, context, problems, responses } = await openPage({ hash: '#v=1&preset=qwen3.5-0.8b&lang=zh' });
  await shown(page, 'zh');
  const font = responses.find((r) => r.url().endsWith('/' + FONT));
  record('zh_font_bytes', Number((await font.allHeaders())['content-length'] || 0));
  for (const tab of ['params', 'memory', 'scaling', 'gpus', 'throughput', 'demo', 'compare', 'share']) {
    await clickWidget(page, 'tab.' + tab);
    const stats = await screenshot(page, `web-zh-${tab}.png`);
    assert.ok(stats.distinctColours > 50 && stats.nonBackground > 0.1, `${tab}: ${JSON.stringify(stats)}`);
    assert.equal(await page.evaluate(() => Module.missingGlyphs()), '', tab);
  }
  await clickWidget(page, 'tab.workload');
  await screenshot(page, 'web-zh-workload.png');
  assert.equal(await page.evaluate(() => Module.language()), 'zh');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a Chinese browser opens in Chinese; a link with lang=en keeps English', async () => {
  const zh = await openPage({ locale: 'zh-CN' });
  await shown(zh.page, 'zh');
  assert.deepEqual(zh.problems, []);
  await zh.context.close();
  const en = await openPage({ locale: 'zh-CN', hash: '#v=1&preset=llama-3-8b&lang=en' });
  await frames(en.page, 5);
  assert.equal(await en.page.evaluate(() => Module.language()), 'en');
  assert.ok(!fetched(en.responses));
  assert.deepEqual(en.problems, []);
  await en.context.close();
});

test('a host without the Chinese glyphs: a message names the file, and the page stays English', async () => {
  const { page, context, problems } = await openPage({ block: [FONT] });
  await clickWidget(page, 'lang');
  await page.waitForFunction(() => Module.banners().length > 0, null, { timeout: 20000 });
  const banners = await page.evaluate(() => Module.banners());
  assert.match(banners[0], /Chinese interface could not be shown: llmsize-zh\.otf: HTTP 404/);
  await frames(page, 3);
  assert.equal(await page.evaluate(() => Module.language()), 'en');
  assert.ok(!(await page.evaluate(() => Module.currentLink())).includes('lang='));
  // The browser reports the 404 on the console: the only problem.
  assert.ok(problems.every((p) => p.includes('404')), JSON.stringify(problems));
  await context.close();
});
