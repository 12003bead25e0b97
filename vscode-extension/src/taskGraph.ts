/**
 * The task-graph webview ("PyPTO: Show Task Graph", and the server's "Task graph" CodeLens on
 * orchestration functions): one panel per function, filled from `ptols/taskGraph` and redrawn
 * on `ptols/previewChanged` (kernelPanel.ts). A click on a task reveals its call.
 */
import * as vscode from 'vscode';
import { KernelPanels, type PanelKind } from './kernelPanel';
import { Methods, parseTaskGraph, type TaskGraphResult } from './logic/protocol';
import { renderTaskGraph } from './logic/taskGraphView';
import type { PreviewManager } from './preview';
import type { ServerController } from './server';

export const TASK_GRAPH_VIEW = 'ptoc.taskGraph';

const TASK_GRAPH: PanelKind<TaskGraphResult> = {
  viewType: TASK_GRAPH_VIEW, title: 'Task Graph', what: 'task graph', method: Methods.taskGraph, parse: parseTaskGraph,
  render: (result, name, resources) => renderTaskGraph(result, name, resources),
};

export type TaskGraphManager = KernelPanels<TaskGraphResult>;

export function taskGraphPanels(extensionUri: vscode.Uri, server: ServerController, log: vscode.LogOutputChannel): TaskGraphManager {
  return new KernelPanels(TASK_GRAPH, extensionUri, server, log);
}

/** `ptols.showTaskGraph` (the lens: `[uri, function]`) and its palette twin `ptoc.showTaskGraph`. */
export function registerTaskGraphCommands(graphs: TaskGraphManager, previews: PreviewManager, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand('ptoc.showTaskGraph', async (resource?: unknown) => {
      const origin = previews.origin(resource);
      if (origin === undefined) {
        void vscode.window.showInformationMessage('Open a PyPTO program (a Python file that imports pypto.language) first.');
        return;
      }
      const fn = await previews.pickFunction(origin.source, origin.function);
      if (typeof fn === 'string') {
        await graphs.show(origin.source, fn);
      }
    }),
    vscode.commands.registerCommand('ptols.showTaskGraph', async (...args: unknown[]) => {
      const [source, fn] = args;
      if (typeof source !== 'string' || source === '' || typeof fn !== 'string' || fn === '') {
        log.warn(`ptols.showTaskGraph: unexpected arguments ${JSON.stringify(args)}`);
        return;
      }
      await graphs.show(source, fn);
    }),
  );
}
