// The task graph of an orchestration function in the editor (#28): the "Task graph" lens
// above it, the webview it opens (a box per task, deps= arrows) and a click on a task that
// reveals its call. task_graph.py is tests/frontend/task_mistakes.py's CLEAN program: a gate,
// a task waiting on it, a predicated four-block SPMD task, in a manual scope.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_TIMEOUT, group, lens, screenshot, waitForCursorLine } from './workbench.mjs';

const SOURCE = `import pypto.language as pl


@pl.program
class Tasks:
    @pl.function(type=pl.FunctionType.InCore)
    def gate(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        flags: pl.Out[pl.Tensor[[64, 64], pl.INT32]],
    ) -> pl.Tensor[[64, 64], pl.INT32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
        c: pl.Tile[[64, 64], pl.INT32] = pl.cast(t, target_type=pl.INT32)
        r: pl.Tensor[[64, 64], pl.INT32] = pl.store(c, [0, 0], flags)
        return r

    @pl.function(type=pl.FunctionType.InCore)
    def scale(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])
        u: pl.Tile[[64, 64], pl.FP32] = pl.add(t, t)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(u, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 64], pl.FP32],
        flags: pl.Out[pl.Tensor[[64, 64], pl.INT32]],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.manual_scope():
            flags, ft = pl.submit(self.gate, x, flags)
            mid, t1 = pl.submit(self.scale, x, out, deps=[ft])
            out, t2 = pl.spmd_submit(
                self.scale, mid, out, core_num=4, deps=[t1, ft], predicate=(flags[0, 0] > 0)
            )
        return out
`;

/** The frame holding the task graph's page (other webviews may be open beside it). */
async function taskGraphFrame(page, timeout = SERVER_TIMEOUT) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (await frame.locator('svg.taskgraph').count().catch(() => 0)) {
        return frame;
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error('no task-graph page appeared');
}

export default async function taskGraph(page, check, { workspace }) {
  writeFileSync(join(workspace, 'task_graph.py'), SOURCE);

  await check('a "Task graph" lens sits above the orchestration function', async () => {
    // The file is new: quick open may not list it yet, the explorer does once it has seen it.
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'task_graph.py' }).first();
    await row.waitFor({ timeout: 30_000 });
    await row.click();
    await group(page, 0).locator('.tab.active[aria-label*="task_graph.py"]').first().waitFor({ timeout: 30_000 });
    await lens(page, 'Task graph').waitFor({ timeout: SERVER_TIMEOUT });
  });

  let frame;
  await check('the lens opens the task graph: a box per task, an arrow per deps= edge', async () => {
    await lens(page, 'Task graph').click();
    await page.locator('.tab[aria-label*="Task Graph: main"]').first().waitFor({ timeout: SERVER_TIMEOUT });
    frame = await taskGraphFrame(page);
    const tasks = await frame
      .locator('g.task')
      .evaluateAll((nodes) => nodes.map((n) => `${n.getAttribute('data-kernel')}:${n.getAttribute('data-line')}`));
    if (tasks.join(',') !== 'gate:36,scale:37,scale:38') {
      throw new Error(`tasks: ${tasks.join(', ')}`);
    }
    const deps = await frame.locator('g.edge.deps').count();
    if (deps !== 3) {
      throw new Error(`${deps} deps= arrows, not ft, t1 and ft`);
    }
    await screenshot(page, 'task_graph.png');
  });

  await check('a click on a task reveals its call', async () => {
    await frame.locator('g.task[data-index="2"] rect').click();
    await page.locator('.editor-group-container.active .tab.active[aria-label*="task_graph.py"]').first().waitFor({ timeout: 10_000 });
    await waitForCursorLine(page, 40); // the call is selected: the cursor ends it
    await frame.locator('g.task[data-index="0"] rect').click();
    await waitForCursorLine(page, 36);
    if ((await group(page, 0).locator('.tab.active[aria-label*="task_graph.py"]').count()) !== 1) {
      throw new Error('the program is not in the first group');
    }
  });
}
