/**
 * "PyPTO: Toggle Colour Bands": each kernel statement and the lines it became in the visible
 * previews share a tint (logic/colourBands.ts), from the previews' source maps.
 */
import * as vscode from 'vscode';
import { BAND_COLOURS, colourBands } from './logic/colourBands';
import { decodePreviewQuery, PREVIEW_SCHEME } from './logic/previewUri';
import type { SourceMapController } from './sourceMap';
import { errorText, sameUri } from './uriText';

/** Translucent, so the text and the source map highlight stay readable in any theme. */
const TINTS = ['#3b78c240', '#2e9a6f40', '#a35fc240', '#c28a2e40', '#2f97a840', '#c25f8f40'];

export class ColourBands implements vscode.Disposable {
  private on = false;
  private readonly types = TINTS.slice(0, BAND_COLOURS).map((colour) =>
    vscode.window.createTextEditorDecorationType({ backgroundColor: colour, isWholeLine: true }),
  );
  private readonly disposables: { dispose(): unknown }[] = [];

  constructor(
    private readonly maps: SourceMapController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const redraw = (): void => {
      if (this.on) {
        this.draw().catch((error: unknown) => this.log.warn(`Colour bands: ${errorText(error)}`));
      }
    };
    this.disposables.push(
      ...this.types,
      vscode.commands.registerCommand('ptoc.toggleColourBands', () => {
        this.on = !this.on;
        if (this.on) {
          redraw();
        } else {
          this.clear();
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors(redraw),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document.uri.scheme === PREVIEW_SCHEME) {
          redraw();
        }
      }),
    );
  }

  private clear(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      for (const type of this.types) {
        editor.setDecorations(type, []);
      }
    }
  }

  private async draw(): Promise<void> {
    for (const preview of vscode.window.visibleTextEditors) {
      const request = preview.document.uri.scheme === PREVIEW_SCHEME ? decodePreviewQuery(preview.document.uri.query) : undefined;
      if (request === undefined) {
        continue;
      }
      const map = await this.maps.mapFor(preview.document);
      if (map === undefined || !this.on) {
        continue;
      }
      const bands = colourBands(map.entries);
      const lines = (numbers: number[]): vscode.Range[] => numbers.map((line) => new vscode.Range(line, 0, line, 0));
      this.types.forEach((type, colour) => preview.setDecorations(type, lines(bands.generated[colour])));
      for (const kernel of vscode.window.visibleTextEditors) {
        if (kernel.document.uri.scheme === 'file' && sameUri(kernel.document.uri.toString(), request.source)) {
          this.types.forEach((type, colour) => kernel.setDecorations(type, lines(bands.source[colour])));
        }
      }
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}
