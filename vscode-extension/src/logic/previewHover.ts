/**
 * Hovers in the C++ and MLIR previews: the word under the mouse as an instruction name, which
 * facts of `ptols/instruction` the target asks for, and the hover's Markdown.
 */
import type { InstructionEntry, PreviewTarget } from './protocol';

/** `TADD`, `set_flag`, `pto.tadd`, `pto.tmatmul.acc`. */
export const INSTRUCTION_WORD = /pto\.[A-Za-z_][\w.]*|[A-Za-z_]\w*/;

/**
 * Which registry spellings a preview's instructions are: pto-isa C++ (ptoc's, and the C++
 * PTOAS makes of the MLIR) or PTO MLIR; IR previews are Python, hovered by the server itself.
 */
export function instructionTarget(target: PreviewTarget): 'cce' | 'pto' | undefined {
  if (target === 'cce' || target === 'pto-cpp') {
    return 'cce';
  }
  return target === 'pto' ? 'pto' : undefined;
}

function entryMarkdown(entry: InstructionEntry): string {
  const form = entry.form === '' ? '' : ` (${entry.form})`;
  const lines = [`**${entry.instruction}** \u2014 \`${entry.op}\`${form} \u00b7 ${entry.pipe} pipe`, '', entry.description];
  if (entry.operands.length > 0) {
    const operands = entry.operands.map((o) => (o.traits === '' ? `\`${o.name}\`` : `\`${o.name}\` (${o.traits})`));
    lines.push('', `Operands: ${operands.join(', ')}`);
  }
  if (entry.attributes.length > 0) {
    lines.push('', `Attributes: ${entry.attributes.map((a) => `\`${a}\``).join(', ')}`);
  }
  if (entry.note !== '') {
    lines.push('', `_${entry.note}_`);
  }
  return lines.join('\n');
}

/** Every op the instruction lowers, one block each. */
export function instructionMarkdown(entries: readonly InstructionEntry[]): string {
  return entries.map(entryMarkdown).join('\n\n---\n\n');
}
