// A @pl.jit kernel in the editor (issue #27): the C++ preview shows its first call's shapes;
// "PyPTO: Choose Specialisation" lists each call (ptols/specialisations) and the preview
// changes to the one picked. jit_add.py is the project's examples/jit_tile_add.py, whose loop
// calls tile_add with 64 x 64 and 128 x 128 tensors.
import { SERVER_TIMEOUT, quickOpen, runCommand, screenshot, waitForEditorText } from './workbench.mjs';

const FIRST = 'aShapeDim5 = Shape<1, 1, 1, 64, 64>';
const SECOND = 'aShapeDim5 = Shape<1, 1, 1, 128, 128>';

export default async function jit(page, check) {
  await check('the preview of a @pl.jit kernel shows its first call\'s shapes', async () => {
    await quickOpen(page, 'jit_add.py');
    await runCommand(page, 'PyPTO: Show Generated C++');
    await page.locator('.tab[aria-label*="jit_add.cpp"]').first().waitFor({ timeout: SERVER_TIMEOUT });
    await waitForEditorText(page, (t) => t.includes(FIRST), 'the 64 x 64 specialisation in the preview');
  });

  await check('"PyPTO: Choose Specialisation" lists each call and the preview shows the one picked', async () => {
    await runCommand(page, 'PyPTO: Choose Specialisation');
    const rows = page.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'a: [128, 128] FP32' }).first().waitFor({ timeout: SERVER_TIMEOUT });
    const labels = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    if (!labels.some((l) => l.includes('call at line') && l.includes('a: [64, 64] FP32'))) {
      throw new Error(`the pick offers: ${labels.join(' | ')}`);
    }
    await page.locator('.quick-input-widget input').fill('128, 128');
    await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'a: [128, 128] FP32' }).first().waitFor();
    await page.keyboard.press('Enter');
    await waitForEditorText(page, (t) => t.includes(SECOND) && !t.includes(FIRST), 'the 128 x 128 specialisation in the preview', 30_000);
    await screenshot(page, 'jit-specialisation.png');
  });
}
