/**
 * Hovers in the C++ and MLIR previews: an instruction's meaning, pipe and operands from the
 * op registry (`ptols/instruction`), e.g. TADD → block.add on the V pipe.
 */
import * as vscode from 'vscode';
import { INSTRUCTION_WORD, instructionMarkdown, instructionTarget } from './logic/previewHover';
import { decodePreviewQuery, PREVIEW_SCHEME } from './logic/previewUri';
import { Methods, parseInstructionResult } from './logic/protocol';
import type { ServerController } from './server';
import { errorText } from './uriText';

export function registerPreviewHovers(server: ServerController, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.languages.registerHoverProvider(
    { scheme: PREVIEW_SCHEME },
    {
      async provideHover(document, position, token) {
        const request = decodePreviewQuery(document.uri.query);
        const target = request === undefined ? undefined : instructionTarget(request.target);
        const range = target === undefined ? undefined : document.getWordRangeAtPosition(position, INSTRUCTION_WORD);
        if (range === undefined) {
          return undefined;
        }
        try {
          const params = { name: document.getText(range), target };
          const result = parseInstructionResult(await server.request(Methods.instruction, params, token));
          if (result === undefined || result.entries.length === 0) {
            return undefined;
          }
          return new vscode.Hover(new vscode.MarkdownString(instructionMarkdown(result.entries)), range);
        } catch (error) {
          log.debug(`ptols/instruction: ${errorText(error)}`);
          return undefined;
        }
      },
    },
  );
}
