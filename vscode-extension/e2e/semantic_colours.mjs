// Semantic colours (issue #31): ptols's semantic tokens reach the editor and the theme colours
// them. semantic_add.py is examples/simple_add.py; grammar_add.py holds the same lines without
// the `import pypto.language as pl`, so it is no kernel and shows what the Python grammar alone
// gives the same words. In the kernel, the op (`add` of `pl.add`) and a tile (`tile_x`) must
// take colours of their own, unlike each other and unlike the grammar's.
import { SERVER_TIMEOUT, log, quickOpen, screenshot } from './workbench.mjs';

const LINE = 'tile_z: pl.Tile[[128, 64], pl.FP32] = pl.add(tile_x, tile_y)';

/** The computed colour and class of `word`'s span on the visible line holding `lineText`. */
async function wordColour(page, lineText, word) {
  return page.evaluate(
    ([wantedLine, wantedWord]) => {
      const clean = (text) => (text ?? '').replace(/\u00a0/g, ' ');
      const editor = document.querySelector('.editor-group-container.active .editor-instance');
      for (const line of editor?.querySelectorAll('.view-line') ?? []) {
        if (!clean(line.textContent).includes(wantedLine)) {
          continue;
        }
        // The first span that is the word alone: semantic tokens split `pl`, `.` and `add`.
        for (const span of line.querySelectorAll('span > span')) {
          if (clean(span.textContent).trim() === wantedWord) {
            return { colour: getComputedStyle(span).color, classes: span.className };
          }
        }
        // Without semantic tokens the grammar may keep the word inside a longer span.
        for (const span of line.querySelectorAll('span > span')) {
          if (clean(span.textContent).includes(wantedWord)) {
            return { colour: getComputedStyle(span).color, classes: span.className };
          }
        }
      }
      return null;
    },
    [lineText, word],
  );
}

async function colours(page) {
  return { add: await wordColour(page, LINE, 'add'), tile: await wordColour(page, LINE, 'tile_x') };
}

export default async function semanticColours(page, check) {
  await check('semantic tokens colour the op and a tile apart from each other and from the grammar', async () => {
    await quickOpen(page, 'grammar_add.py');
    // No kernel, so no semantic tokens: what it shows after a moment is the grammar's colours.
    await page.waitForTimeout(2_000);
    const plain = await colours(page);
    if (plain.add === null || plain.tile === null) {
      throw new Error(`grammar_add.py does not show the line: ${JSON.stringify(plain)}`);
    }
    await quickOpen(page, 'semantic_add.py');
    const deadline = Date.now() + SERVER_TIMEOUT;
    let seen;
    for (;;) {
      seen = await colours(page);
      const ok =
        seen.add !== null &&
        seen.tile !== null &&
        seen.add.colour !== seen.tile.colour &&
        seen.add.colour !== plain.add.colour &&
        seen.tile.colour !== plain.tile.colour;
      if (ok) {
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(`no semantic colours: the kernel shows ${JSON.stringify(seen)}, the grammar alone ${JSON.stringify(plain)}`);
      }
      await page.waitForTimeout(250);
    }
    log(`semantic colours: add ${seen.add.colour} (${seen.add.classes}), tile_x ${seen.tile.colour} (${seen.tile.classes}); grammar alone: add ${plain.add.colour}, tile_x ${plain.tile.colour}`);
    await screenshot(page, 'semantic-colours.png');
  });
}
