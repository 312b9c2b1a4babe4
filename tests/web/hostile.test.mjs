// Hostile input in the browser (issue 6): the page runs under its Content-Security-Policy
// without violations, and malicious share links (markup in fields, absurd sizes, overflow,
// broken encoding, oversized links) give a visible message naming the problem — never a
// dialog, a new DOM node, a console error or a dead page. Screenshots go to artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setUp, tearDown, openPage, frames, clickWidget, figures, screenshot } from './harness.mjs';

before(setUp);
after(tearDown);

// Runs in the page before its own scripts: records CSP violations and DOM insertions.
function watch() {
  window.hostile = { csp: [], added: [] };
  document.addEventListener('securitypolicyviolation', (e) => window.hostile.csp.push(e.violatedDirective + ' ' + e.blockedURI));
  new MutationObserver((list) => {
    for (const m of list) for (const n of m.addedNodes) if (n.nodeType === 1) window.hostile.added.push(n.nodeName);
  }).observe(document, { childList: true, subtree: true });
}

test('the page declares a Content-Security-Policy and runs without violating it', async () => {
  const { page, context, problems } = await openPage({ init: watch });
  await frames(page, 5);
  const csp = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content || '');
  assert.match(csp, /default-src 'self'/);
  assert.doesNotMatch(csp, /'unsafe-eval'/, 'no eval allowed (only wasm-unsafe-eval)');
  assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
  assert.deepEqual(await page.evaluate(() => window.hostile.csp), []);
  // The policy is enforced: an inline script injected now is blocked.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.injected = true;';
    document.body.append(s);
  });
  assert.equal(await page.evaluate(() => window.injected === true), false, 'inline script ran despite the policy');
  assert.deepEqual(problems.filter((p) => !/Content Security Policy/.test(p)), []);
  await context.close();
});

test('malicious share links show a message, change nothing else, and the page keeps working', async () => {
  const { page, context, problems } = await openPage({ init: watch });
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  const defaults = await figures(page);
  const added = await page.evaluate(() => window.hostile.added.length);

  const hostile = [
    ['#v=1&preset=%3Cscript%3Ealert(1)%3C%2Fscript%3E', /preset/],
    ['#v=1&preset=gpt2&w=javascript:alert(1)', /\bw\b.*one of/],
    ['#v=1&preset=gpt2&norm=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', /norm/],
    ['#v=1&preset=gpt2&L=99999999999999999999', /L: .*\[1, 10000\]/],
    ['#v=1&preset=gpt2&seq=1e309', /seq/],
    ['#v=1&preset=gpt2&seq=NaN', /seq/],
    ['#v=1&preset=gpt2&d=-4096', /\bd\b/],
    ['#v=1&fam=llama&L=10000&d=1048576&H=16&KV=16&hd=65536&ff=16777216&V=16777216&P=1&E=65536&topk=1&fe=16777216', /overflow/],
    ['#v=1&preset=gpt2&name=%FF%FE%FD', /UTF-8/],
    ['#v=1&preset=gpt2&seq=%', /percent-encoded/],
    ['#v=1&preset=gpt2&seq=8&seq=9', /more than once/],
    ['#v=999&preset=gpt2', /newer/],
    ['#v=1&' + 'x=1&'.repeat(3000), /limit/],
    ['#v=1&preset=gpt2&ui.tab=%22%3E%3Cscript%3E', /ui\.tab/],
    // Comparison links: each case's link is checked as a link, its keys named under c<k>.
    ['#v=1&preset=gpt2&c2=v%3D1%26preset%3D%253Cscript%253E', /c2\.preset/],
    ['#v=1&preset=gpt2&c3=v%3D1%26preset%3Dgpt2', /c2: is missing/],
    ['#v=1&preset=gpt2&c2=v%3D1&c2=v%3D1', /more than once/],
    ['#v=1&preset=gpt2&c2=%', /c2/],
    ['#v=1&preset=gpt2&c2=v%3D1%26preset%3Dgpt2%26c2%3Dv%253D1', /c2\.c2/],
    ['#v=1&preset=gpt2&c2=' + 'v%3D1%26seq%3D8'.repeat(2500), /limit/],
  ];
  for (const [hash, says] of hostile) {
    await page.evaluate((h) => { location.hash = h; }, hash);
    await frames(page, 3);
    const banners = await page.evaluate(() => Module.banners());
    assert.ok(banners.length >= 1, `no message for ${hash.slice(0, 60)}`);
    assert.match(banners.join(' '), says, `message for ${hash.slice(0, 60)}: ${banners.join(' ')}`);
    // A bad view setting keeps the (valid) model and workload; anything else opens the default.
    if (!hash.includes('ui.')) assert.deepEqual(await figures(page), defaults, `state after ${hash.slice(0, 60)}`);
  }
  const stats = await screenshot(page, 'web-hostile-link.png');
  assert.ok(stats.nonBackground > 0.2);

  // Markup in a valid field is only ever text: the name is shown, no element appears.
  await page.evaluate(() => { location.hash = '#v=1&preset=gpt2&name=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E'; });
  await frames(page, 3);
  assert.deepEqual(await page.evaluate(() => Module.banners()), []);

  // Still alive: a real click picks another preset and the figures follow.
  await clickWidget(page, 'preset.search');
  await page.keyboard.type('mixtral 8x7');
  await frames(page, 3);
  await clickWidget(page, 'preset.first');
  const after = await figures(page);
  assert.equal(after.model.name, 'Mixtral 8x7B');
  assert.deepEqual(dialogs, []);
  assert.equal(await page.evaluate(() => window.hostile.added.length), added, 'no DOM nodes were added');
  assert.deepEqual(await page.evaluate(() => window.hostile.csp), []);
  assert.deepEqual(problems, []);
  await context.close();
});
