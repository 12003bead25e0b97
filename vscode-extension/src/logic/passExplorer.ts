/**
 * The pass explorer's questions of a `ptols/passDiff` answer, without VS Code: which passes the
 * list shows (those that changed the IR), their labels, stepping from one to the next, the
 * documents of the diff's two sides and where a line of either side came from in the kernel.
 */
import type { LspRange, PassChange, PassDiffResult, PassStage, ProgramPassDiff } from './protocol';
import { entryAt } from './sourceMap';

export const PASS_SCHEME = 'ptoc-pass';

/** A pass of one program: indices into the answer. */
export interface PassRef {
  program: number;
  pass: number;
}

/** `+12 −0`: lines the pass added and removed (a minus sign, as diff views write it). */
export function passCounts(change: PassChange): string {
  return `+${change.added} \u2212${change.removed}`;
}

export function changed(change: PassChange): boolean {
  return change.before !== change.after;
}

/** The passes the list shows, in pipeline order: those that changed the IR. */
export function shownPasses(result: PassDiffResult): PassRef[] {
  const refs: PassRef[] = [];
  result.programs.forEach((program, p) => {
    program.passes.forEach((change, i) => {
      if (changed(change)) {
        refs.push({ program: p, pass: i });
      }
    });
  });
  return refs;
}

/** The passes that changed nothing, named in the list's note. */
export function hiddenPasses(program: ProgramPassDiff): string[] {
  return program.passes.filter((change) => !changed(change)).map((change) => change.name);
}

/**
 * The pass `delta` steps from `current` among the shown ones (Alt+] / Alt+[): the first (or the
 * last, stepping back) when none is selected; undefined past either end.
 */
export function step(result: PassDiffResult, current: PassRef | undefined, delta: 1 | -1): PassRef | undefined {
  const shown = shownPasses(result);
  if (shown.length === 0) {
    return undefined;
  }
  if (current === undefined) {
    return delta > 0 ? shown[0] : shown[shown.length - 1];
  }
  const index = shown.findIndex((ref) => ref.program === current.program && ref.pass === current.pass);
  if (index < 0) {
    return shown[0];
  }
  return shown[index + delta];
}

/** The path of a stage's document: `/Program/NN Stage.py` (the stage's index in the pipeline). */
export function stagePath(program: ProgramPassDiff, stage: number): string {
  const name = program.stages[stage]?.name ?? 'stage';
  return `/${program.program}/${String(stage).padStart(2, '0')} ${name}.py`;
}

/** The diff editor's title: `InsertSync (+12 −0): IR before ↔ after`. */
export function diffTitle(change: PassChange): string {
  return `${change.name} (${passCounts(change)}): IR before \u2194 after`;
}

/** The stage a pass document shows: what `stagePath` put in its path. */
export function stageFromPath(path: string): { program: string; stage: number; name: string } | undefined {
  const match = /^\/([^/]+)\/(\d+) ([^/]*)\.py$/.exec(path);
  return match === null ? undefined : { program: match[1], stage: Number(match[2]), name: match[3] };
}

/**
 * The stage a pass document shows in a newer answer: the one at its index when it has the
 * same name, else the one of that name (an edit may change which passes change the IR).
 */
export function stageFor(result: PassDiffResult, path: string): PassStage | undefined {
  const where = stageFromPath(path);
  const program = result.programs.find((p) => p.program === where?.program);
  if (where === undefined || program === undefined) {
    return undefined;
  }
  const atIndex = program.stages.at(where.stage);
  return atIndex?.name === where.name ? atIndex : program.stages.find((s) => s.name === where.name);
}

/** Where line `line` of a stage came from in the kernel, if its source map knows. */
export function sourceOfLine(stage: PassStage, line: number): LspRange | undefined {
  return entryAt(stage.entries, line)?.source;
}

/** The tooltip of a pass in the list. */
export function passTooltip(change: PassChange): string {
  const what = change.description === '' ? change.name : `${change.name}: ${change.description}`;
  return `${what}\n${change.added} lines added, ${change.removed} removed`;
}
