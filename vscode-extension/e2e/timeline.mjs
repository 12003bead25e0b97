// The timeline of a kernel in the editor: the `≈ N cycles` lens, the cycle hints, the webview
// it opens (a lane per pipe, a box per instruction, set→wait arrows) and a click on an
// instruction that reveals its line. timed_add.py is examples/simple_add.py, whose prediction
// tests/timeline holds to pto-isa's cost model: 1,686 cycles.
import { SERVER_TIMEOUT, group, lens, normalise, quickOpen, screenshot, waitForCursorLine, waitForEditorText } from './workbench.mjs';

const LENS = '≈ 1,686 cycles';

/** The frame holding the timeline's page (other webviews may be open beside it). */
async function timelineFrame(page, timeout = SERVER_TIMEOUT) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (await frame.locator('svg.timeline').count().catch(() => 0)) {
        return frame;
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error('no timeline page appeared');
}

export default async function timeline(page, check) {
  await check('a lens above the kernel predicts its cycles', async () => {
    await quickOpen(page, 'timed_add.py');
    await lens(page, LENS).waitFor({ timeout: SERVER_TIMEOUT });
  });

  await check('inlay hints give each kernel line its predicted cycles', async () => {
    const text = await waitForEditorText(page, (t) => t.includes('≈ 266 cycles (V)'), 'the cycle hint of the add', SERVER_TIMEOUT);
    const line = text.split('\n').find((l) => l.includes('≈ 266 cycles (V)')) ?? '';
    if (!line.includes('pl.add(')) {
      throw new Error(`the V hint is not on the add: ${line}`);
    }
  });

  let frame;
  await check('the lens opens the timeline: a lane per pipe, a box per instruction, set→wait arrows', async () => {
    await lens(page, LENS).click();
    await page.locator('.tab[aria-label*="Timeline: simple_add"]').first().waitFor({ timeout: SERVER_TIMEOUT });
    frame = await timelineFrame(page);
    const pipes = await frame.locator('g.pipe').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-pipe')));
    if (pipes.join(',') !== 'MTE2,V,MTE3') {
      throw new Error(`lanes: ${pipes.join(', ')}`);
    }
    const boxes = await frame
      .locator('g.instruction')
      .evaluateAll((nodes) => nodes.map((n) => `${n.getAttribute('data-name')}@${n.getAttribute('data-pipe')}:${n.getAttribute('data-line')}`));
    if (boxes.join(',') !== 'TLOAD@MTE2:19,TLOAD@MTE2:20,TADD@V:21,TSTORE@MTE3:22') {
      throw new Error(`instructions: ${boxes.join(', ')}`);
    }
    const arrows = await frame.locator('g.arrow').count();
    if (arrows !== 2) {
      throw new Error(`${arrows} arrows, not MTE2→V and V→MTE3`);
    }
    const summary = normalise(await frame.locator('section.function').first().innerText());
    if (!summary.includes('≈ 1,686 cycles (0.91 µs at 1.85 GHz) · bottleneck MTE2')) {
      throw new Error(`the summary says: ${summary}`);
    }
    await screenshot(page, 'timeline.png');
  });

  await check('a click on an instruction reveals its source line', async () => {
    await frame.locator('g.instruction[data-name="TADD"] rect').click();
    await page.locator('.editor-group-container.active .tab.active[aria-label*="timed_add.py"]').first().waitFor({ timeout: 10_000 });
    await waitForCursorLine(page, 21);
    await frame.locator('g.instruction[data-name="TSTORE"] rect').click();
    await waitForCursorLine(page, 22);
    if ((await group(page, 0).locator('.tab.active[aria-label*="timed_add.py"]').count()) !== 1) {
      throw new Error('the kernel is not in the first group');
    }
  });
}
