/**
 * The timeline webview ("PyPTO: Show Timeline", and the server's `≈ N cycles` CodeLens): one
 * panel per kernel, filled from `ptols/timeline` and redrawn on `ptols/previewChanged`. A
 * click on an instruction (or an arrow) reveals its source line (kernelPanel.ts; the page's
 * script is the memory map's, media/memoryMap.js).
 */
import * as vscode from 'vscode';
import { KernelPanels, type PanelKind } from './kernelPanel';
import { Methods, parseTimeline, type TimelineResult } from './logic/protocol';
import { timelineLayoutForWidth } from './logic/timelineLayout';
import { renderTimeline } from './logic/timelineView';
import type { PreviewManager } from './preview';
import type { ServerController } from './server';

export const TIMELINE_VIEW = 'ptoc.timeline';

const TIMELINE: PanelKind<TimelineResult> = {
  viewType: TIMELINE_VIEW, title: 'Timeline', what: 'timeline', method: Methods.timeline, parse: parseTimeline,
  render: (result, name, resources, width) => renderTimeline(result, name, resources, timelineLayoutForWidth(width)),
};

export type TimelineManager = KernelPanels<TimelineResult>;

export function timelinePanels(extensionUri: vscode.Uri, server: ServerController, log: vscode.LogOutputChannel): TimelineManager {
  return new KernelPanels(TIMELINE, extensionUri, server, log);
}

/** `ptols.showTimeline` (the lens: `[uri, function]`) and its palette twin `ptoc.showTimeline`. */
export function registerTimelineCommands(
  timelines: TimelineManager,
  previews: PreviewManager,
  log: vscode.LogOutputChannel,
): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand('ptoc.showTimeline', async (resource?: unknown) => {
      const origin = previews.origin(resource);
      if (origin === undefined) {
        void vscode.window.showInformationMessage('Open a PyPTO kernel (a Python file that imports pypto.language) first.');
        return;
      }
      const fn = await previews.pickFunction(origin.source, origin.function);
      if (fn !== null) {
        await timelines.show(origin.source, fn);
      }
    }),
    vscode.commands.registerCommand('ptols.showTimeline', async (...args: unknown[]) => {
      const [source, fn] = args;
      if (typeof source !== 'string' || source === '') {
        log.warn(`ptols.showTimeline: unexpected arguments ${JSON.stringify(args)}`);
        return;
      }
      await timelines.show(source, typeof fn === 'string' && fn !== '' ? fn : undefined);
    }),
  );
}
