/**
 * "PyPTO: Choose Specialisation": the `@pl.jit` kernels of a file have one specialisation per
 * call (or `# ptoc: specialise` comment, or `[tool.ptoc.jit]` entry); a quick pick of those
 * `ptols/specialisations` lists chooses the one the file's previews show (`specialisation` of
 * `ptols/preview`, the N-th of each kernel as `ptoc compile --specialise N`).
 */
import * as vscode from 'vscode';
import { Methods, parseSpecialisations } from './logic/protocol';
import { pick } from './preview';
import type { PreviewManager } from './preview';
import type { ServerController } from './server';
import { errorText } from './uriText';

export function registerSpecialisationCommand(
  previews: PreviewManager,
  server: ServerController,
  log: vscode.LogOutputChannel,
  onChosen: (source: string) => void = () => undefined,
): vscode.Disposable {
  return vscode.commands.registerCommand('ptoc.chooseSpecialisation', async (resource?: unknown) => {
    const origin = previews.origin(resource);
    if (origin === undefined) {
      void vscode.window.showInformationMessage('Open a PyPTO kernel (a Python file that imports pypto.language) first.');
      return;
    }
    let kernels;
    try {
      kernels = parseSpecialisations(await server.request(Methods.specialisations, { textDocument: { uri: origin.source } }));
    } catch (error) {
      log.warn(`Choose Specialisation: ${errorText(error)}`);
      return;
    }
    const choices = kernels.flatMap((kernel) =>
      kernel.specialisations.map((s, i) => ({
        value: { index: s.index, ...(s.key === undefined ? {} : { key: s.key }) },
        label: s.label,
        ...(i === 0 ? { group: kernel.name } : {}),
        ...(previews.specialisations.get(origin.source)?.index === s.index ? { description: 'shown' } : {}),
      })),
    );
    if (choices.length === 0) {
      void vscode.window.showInformationMessage('This file has no @pl.jit kernel with a specialisation (a call whose tensors can be read).');
      return;
    }
    const chosen = await pick(choices, 'The specialisation the previews, the memory map and Run use');
    if (chosen !== undefined) {
      previews.specialisations.set(origin.source, chosen.value);
      previews.refreshSource(origin.source);
      onChosen(origin.source);
    }
  });
}
