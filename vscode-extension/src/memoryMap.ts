/**
 * The memory map webview: one panel per kernel (and function), filled from `ptols/memoryMap`
 * and redrawn on `ptols/previewChanged`, as previews are (kernelPanel.ts). A click on a buffer
 * reveals its first use in the kernel.
 */
import type * as vscode from 'vscode';
import { KernelPanels, type PanelKind } from './kernelPanel';
import { layoutForWidth, renderMemoryMap } from './logic/memoryView';
import { Methods, parseMemoryMap, type MemoryMapResult } from './logic/protocol';
import type { ServerController } from './server';

export const MEMORY_MAP_VIEW = 'ptoc.memoryMap';

const MEMORY_MAP: PanelKind<MemoryMapResult> = {
  viewType: MEMORY_MAP_VIEW, title: 'Memory', what: 'memory map', method: Methods.memoryMap, parse: parseMemoryMap,
  render: (result, name, resources, width) => renderMemoryMap(result, name, resources, layoutForWidth(width)),
};

export class MemoryMapManager extends KernelPanels<MemoryMapResult> {
  constructor(extensionUri: vscode.Uri, server: ServerController, log: vscode.LogOutputChannel) {
    super(MEMORY_MAP, extensionUri, server, log);
  }
}
