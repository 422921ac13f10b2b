import { buildWebLog, launchChromium } from './test/web-fixture.ts';
const log = await buildWebLog();
for (let i = 0; i < 3; i++) await log.round(8); await log.erase(3); log.witnessDown(2, 'witness_unavailable: no answer within 5000 ms'); await log.round(2);
const tb = await launchChromium();
for (const [w, h, name] of [[1280, 1000, 'd'], [390, 844, 'p']] as const) {
  const page = await tb.browser.newPage({ viewport: { width: w, height: h } });
  await page.goto(`${log.url}/`);
  await page.waitForSelector('#entry-rows tr');
  await page.click('#entry-rows tr[data-seq="20"] button');
  await page.waitForSelector('#proof-verdict');
  await page.evaluate('window.scrollTo(0,0)');
  await page.screenshot({ path: `/tmp/ex-${name}.png`, fullPage: name === 'd' });
  const wide = await page.evaluate(`[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > ${w + 2}).slice(0, 15).map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right))`);
  console.log(name, wide);
  if (name === 'p') { await page.locator('#entry').scrollIntoViewIfNeeded(); await page.screenshot({ path: `/tmp/ex-p2.png` }); }
}
await tb.close(); await log.close();
