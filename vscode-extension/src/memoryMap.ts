/**
 * The memory map webview: one panel per kernel (and function), filled from `ptols/memoryMap`
 * and redrawn on `ptols/previewChanged`, as previews are (kernelPanel.ts). A click on a buffer
 * reveals its first use and pins it: every mention of the tile in the kernel is highlighted
 * (the server's document highlights) until it is clicked again. The page's toggles choose the
 * scale (capacity or bytes used) and the memory spaces shown.
 */
import * as vscode from 'vscode';
import { KernelPanels, type PanelKind } from './kernelPanel';
import { DEFAULT_VIEW, decodeRange, layoutForWidth, renderMemoryMap, type MemoryViewState } from './logic/memoryView';
import { Methods, parseMemoryMap, type LspRange, type MemoryMapResult } from './logic/protocol';
import { SpecialisationChoices } from './logic/specialisationChoice';
import type { ServerController } from './server';
import { HIGHLIGHT_COLOUR } from './sourceMap';
import { errorText, sameUri } from './uriText';

export const MEMORY_MAP_VIEW = 'ptoc.memoryMap';

/** The page's toggles (`{command: 'view', view, value}`). */
export function viewAfter(state: MemoryViewState, view: unknown, value: unknown): MemoryViewState | undefined {
  if (view === 'scale' && (value === 'capacity' || value === 'used')) {
    return { ...state, scaleTo: value };
  }
  if (view === 'space' && typeof value === 'string') {
    const hidden = state.hidden.includes(value) ? state.hidden.filter((s) => s !== value) : [...state.hidden, value];
    return { ...state, hidden };
  }
  return undefined;
}

/** Every mention of the pinned tile, highlighted in the editors that show its kernel. */
class PinnedMentions implements vscode.Disposable {
  // Made at the first pin: most panels never pin anything.
  private decoration: vscode.TextEditorDecorationType | undefined;
  private listener: vscode.Disposable | undefined;
  private shown: { source: string; ranges: vscode.Range[] } | undefined;

  /** Pins the tile `name` defined at `definition` (undefined: unpins). */
  async pin(source: string, name: string | undefined, definition: LspRange | undefined): Promise<void> {
    this.shown = undefined;
    if (name !== undefined && definition !== undefined) {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(source));
      const at = new vscode.Position(definition.start.line, definition.start.character);
      const word = document.getWordRangeAtPosition(at);
      // A tile a pass made (a reduction's scratch) has no name of its own in the kernel.
      if (word !== undefined && document.getText(word) === name) {
        const found = await vscode.commands.executeCommand<vscode.DocumentHighlight[] | undefined>(
          'vscode.executeDocumentHighlights',
          document.uri,
          at,
        );
        this.shown = { source, ranges: (found ?? []).map((h) => h.range) };
      }
    }
    this.apply();
  }

  private apply(): void {
    this.decoration ??= vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor(HIGHLIGHT_COLOUR),
      border: '1px solid',
      borderColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
      overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
      overviewRulerLane: vscode.OverviewRulerLane.Center,
    });
    this.listener ??= vscode.window.onDidChangeVisibleTextEditors(() => this.apply());
    const decoration = this.decoration;
    for (const editor of vscode.window.visibleTextEditors) {
      const mine = this.shown !== undefined && sameUri(editor.document.uri.toString(), this.shown.source);
      editor.setDecorations(decoration, mine && this.shown !== undefined ? this.shown.ranges : []);
    }
  }

  dispose(): void {
    this.listener?.dispose();
    this.decoration?.dispose();
  }
}

function memoryMapKind(
  pins: PinnedMentions,
  log: vscode.LogOutputChannel,
  choices: SpecialisationChoices,
): PanelKind<MemoryMapResult, MemoryViewState> {
  return {
    viewType: MEMORY_MAP_VIEW,
    params: (source) => ({ ...choices.fields(source) }),
    title: 'Memory',
    what: 'memory map',
    method: Methods.memoryMap,
    parse: parseMemoryMap,
    render: (result, name, resources, width, state) => renderMemoryMap(result, name, resources, layoutForWidth(width), state),
    initialState: () => DEFAULT_VIEW,
    onMessage: (state, message, source) => {
      if (message.command === 'view') {
        return viewAfter(state, message.view, message.value);
      }
      if (message.command !== 'reveal' || typeof message.pin !== 'string') {
        return undefined;
      }
      const pinned = state.pinned === message.pin ? undefined : message.pin;
      const name = pinned?.slice(pinned.indexOf('/') + 1);
      pins.pin(source, name, decodeRange(message.range)).catch((error: unknown) => log.warn(`Pinning ${name ?? ''}: ${errorText(error)}`));
      return { ...state, pinned };
    },
  };
}

export class MemoryMapManager extends KernelPanels<MemoryMapResult, MemoryViewState> {
  private readonly pins: PinnedMentions;

  constructor(
    extensionUri: vscode.Uri,
    server: ServerController,
    log: vscode.LogOutputChannel,
    choices: SpecialisationChoices = new SpecialisationChoices(),
  ) {
    const pins = new PinnedMentions();
    super(memoryMapKind(pins, log, choices), extensionUri, server, log);
    this.pins = pins;
  }

  override dispose(): void {
    super.dispose();
    this.pins.dispose();
  }
}
