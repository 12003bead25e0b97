/**
 * The ptols protocol extensions (see README "Server protocol"), with light validation:
 * replies come from another process, so they are checked before the UI trusts them.
 */

export const Methods = {
  preview: 'ptols/preview',
  previewChanged: 'ptols/previewChanged',
  functions: 'ptols/functions',
  passes: 'ptols/passes',
  status: 'ptols/status',
  sourceMap: 'ptols/sourceMap',
  memoryMap: 'ptols/memoryMap',
  run: 'ptols/run',
  timeline: 'ptols/timeline',
  specialisations: 'ptols/specialisations',
  taskGraph: 'ptols/taskGraph',
  passDiff: 'ptols/passDiff',
  instruction: 'ptols/instruction',
} as const;

/** `cce` = C++ on pto-isa, `pto` = MLIR in the PTO dialect, `ir` = IR as written, `pass:X` = IR after pass X. */
export type PreviewTarget = 'cce' | 'pto' | 'pto-cpp' | 'ir' | `pass:${string}`;
export type PreviewLanguage = 'cpp' | 'mlir' | 'python';

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface PreviewParams {
  textDocument: { uri: string };
  target: PreviewTarget;
  function?: string;
  specialisation?: number;
  specialisationKey?: string;
}

export interface SpecialisationsParams {
  textDocument: { uri: string };
}

/** One `@pl.jit` kernel and its specialisations (`index` is the preview's `specialisation`). */
export interface JitKernel {
  name: string;
  range: LspRange;
  specialisations: { index: number; label: string; key?: string }[];
}

export interface SpecialisationsResult {
  version: number | null;
  kernels: JitKernel[];
}

export interface PreviewDiagnostic {
  range: LspRange;
  severity: number;
  code?: string;
  message: string;
}

export interface PreviewResult {
  language: PreviewLanguage;
  content: string;
  version: number | null;
  diagnostics: PreviewDiagnostic[];
  // The chosen @pl.jit specialisation is gone: which one is shown instead.
  note?: string;
}

export interface FunctionEntry {
  name: string;
  program: string | null;
  range: LspRange;
}

export interface PassEntry {
  name: string;
  description: string;
}

export interface PassesResult {
  passes: PassEntry[];
  pipelines: Record<string, string[]>;
}

export interface StatusParams {
  state: 'analysing' | 'ready';
  uri?: string;
  /** With `ready`: the document's language edition and why, e.g. "PyPTO 2026-08 (detected from its spellings)". */
  edition?: string;
}

export interface PreviewChangedParams {
  uri: string;
  version: number | null;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPosition(value: unknown): value is LspPosition {
  return isObject(value) && typeof value.line === 'number' && typeof value.character === 'number';
}

export function isRange(value: unknown): value is LspRange {
  return isObject(value) && isPosition(value.start) && isPosition(value.end);
}

const ORIGIN: LspRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
const PREVIEW_LANGUAGES: readonly string[] = ['cpp', 'mlir', 'python'];

function parseDiagnostic(value: unknown): PreviewDiagnostic | undefined {
  if (!isObject(value) || typeof value.message !== 'string') {
    return undefined;
  }
  const code = typeof value.code === 'string' || typeof value.code === 'number' ? String(value.code) : undefined;
  return {
    range: isRange(value.range) ? value.range : ORIGIN,
    severity: typeof value.severity === 'number' ? value.severity : 1,
    ...(code === undefined ? {} : { code }),
    message: value.message,
  };
}

export function parsePreviewResult(value: unknown): PreviewResult | undefined {
  if (!isObject(value) || typeof value.content !== 'string') {
    return undefined;
  }
  const language = typeof value.language === 'string' && PREVIEW_LANGUAGES.includes(value.language)
    ? (value.language as PreviewLanguage)
    : 'python';
  const diagnostics = Array.isArray(value.diagnostics)
    ? value.diagnostics.map(parseDiagnostic).filter((d): d is PreviewDiagnostic => d !== undefined)
    : [];
  return {
    language,
    content: value.content,
    version: typeof value.version === 'number' ? value.version : null,
    diagnostics,
    ...(typeof value.note === 'string' ? { note: value.note } : {}),
  };
}

export function parseFunctions(value: unknown): FunctionEntry[] {
  if (!isObject(value) || !Array.isArray(value.functions)) {
    return [];
  }
  const entries: FunctionEntry[] = [];
  for (const item of value.functions) {
    if (isObject(item) && typeof item.name === 'string') {
      entries.push({
        name: item.name,
        program: typeof item.program === 'string' ? item.program : null,
        range: isRange(item.range) ? item.range : ORIGIN,
      });
    }
  }
  return entries;
}

export function parsePasses(value: unknown): PassesResult {
  const result: PassesResult = { passes: [], pipelines: {} };
  if (!isObject(value)) {
    return result;
  }
  if (Array.isArray(value.passes)) {
    for (const item of value.passes) {
      if (isObject(item) && typeof item.name === 'string') {
        result.passes.push({
          name: item.name,
          description: typeof item.description === 'string' ? item.description : '',
        });
      }
    }
  }
  if (isObject(value.pipelines)) {
    for (const [name, passes] of Object.entries(value.pipelines)) {
      if (Array.isArray(passes)) {
        result.pipelines[name] = passes.filter((p): p is string => typeof p === 'string');
      }
    }
  }
  return result;
}

export function parseStatus(value: unknown): StatusParams | undefined {
  if (!isObject(value) || (value.state !== 'analysing' && value.state !== 'ready')) {
    return undefined;
  }
  const params: StatusParams = typeof value.uri === 'string' ? { state: value.state, uri: value.uri } : { state: value.state };
  return typeof value.edition === 'string' ? { ...params, edition: value.edition } : params;
}

export function parsePreviewChanged(value: unknown): PreviewChangedParams | undefined {
  if (!isObject(value) || typeof value.uri !== 'string') {
    return undefined;
  }
  return { uri: value.uri, version: typeof value.version === 'number' ? value.version : null };
}

export interface SourceMapParams {
  textDocument: { uri: string };
  target: PreviewTarget;
  function?: string;
}

export interface SourceMapEntry {
  // Inclusive 0-based lines of the preview content.
  generated: { startLine: number; endLine: number };
  source: LspRange;
}

export interface SourceMapResult {
  version: number | null;
  // The exact preview text the lines refer to.
  content: string;
  // Sorted by generated.startLine.
  entries: SourceMapEntry[];
}

function isLine(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

export function parseSourceMap(value: unknown): SourceMapResult | undefined {
  if (!isObject(value) || typeof value.content !== 'string') {
    return undefined;
  }
  const entries: SourceMapEntry[] = [];
  for (const item of Array.isArray(value.entries) ? value.entries : []) {
    if (!isObject(item) || !isObject(item.generated) || !isRange(item.source)) {
      continue;
    }
    const { startLine, endLine } = item.generated;
    if (isLine(startLine) && isLine(endLine) && endLine >= startLine) {
      entries.push({ generated: { startLine, endLine }, source: item.source });
    }
  }
  entries.sort((a, b) => a.generated.startLine - b.generated.startLine);
  return { version: typeof value.version === 'number' ? value.version : null, content: value.content, entries };
}

export interface MemoryMapParams {
  textDocument: { uri: string };
  function?: string;
  specialisation?: number;
  specialisationKey?: string;
}

export interface BufferUse {
  // Statement index in program order.
  index: number;
  range: LspRange;
}

export interface MemoryBuffer {
  name: string;
  space: string;
  // Byte address in its space.
  start: number;
  size: number;
  firstUse: BufferUse;
  lastUse: BufferUse;
  // Buffers sharing storage after MemoryReuse share a group.
  reuseGroup: number | null;
  dtype: string;
  shape: number[];
  // Bytes the tile itself occupies from `start` (< size: a sub-range of its buffer).
  valueSize: number;
}

export interface MemorySpaceInfo {
  space: string;
  capacity: number;
  used: number;
  overflow: boolean;
}

export interface FunctionMemoryMap {
  name: string;
  range: LspRange;
  // Program-order length.
  statements: number;
  spaces: MemorySpaceInfo[];
  buffers: MemoryBuffer[];
}

export interface MemoryMapResult {
  version: number | null;
  functions: FunctionMemoryMap[];
  diagnostics: PreviewDiagnostic[];
  // As the preview's: the chosen @pl.jit specialisation is gone, which one is drawn instead.
  note?: string;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function parseUse(value: unknown): BufferUse | undefined {
  return isObject(value) && isCount(value.index) && isRange(value.range) ? { index: value.index, range: value.range } : undefined;
}

function parseBuffer(value: unknown): MemoryBuffer | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.space !== 'string') {
    return undefined;
  }
  const firstUse = parseUse(value.firstUse);
  const lastUse = parseUse(value.lastUse);
  if (!isCount(value.start) || !isCount(value.size) || firstUse === undefined || lastUse === undefined) {
    return undefined;
  }
  return {
    name: value.name,
    space: value.space,
    start: value.start,
    size: value.size,
    firstUse,
    lastUse: lastUse.index >= firstUse.index ? lastUse : firstUse,
    reuseGroup: typeof value.reuseGroup === 'number' ? value.reuseGroup : null,
    dtype: typeof value.dtype === 'string' ? value.dtype : '',
    shape: Array.isArray(value.shape) ? value.shape.filter((n): n is number => typeof n === 'number') : [],
    valueSize: isCount(value.valueSize) ? Math.min(value.valueSize, value.size) : value.size,
  };
}

function parseSpace(value: unknown): MemorySpaceInfo | undefined {
  if (!isObject(value) || typeof value.space !== 'string' || !isCount(value.capacity)) {
    return undefined;
  }
  const used = isCount(value.used) ? value.used : 0;
  return { space: value.space, capacity: value.capacity, used, overflow: value.overflow === true || used > value.capacity };
}

function parseFunctionMemoryMap(value: unknown): FunctionMemoryMap | undefined {
  if (!isObject(value) || typeof value.name !== 'string') {
    return undefined;
  }
  const spaces = Array.isArray(value.spaces) ? value.spaces.map(parseSpace).filter((s) => s !== undefined) : [];
  const buffers = Array.isArray(value.buffers) ? value.buffers.map(parseBuffer).filter((b) => b !== undefined) : [];
  return {
    name: value.name,
    range: isRange(value.range) ? value.range : ORIGIN,
    statements: isCount(value.statements) ? value.statements : 0,
    spaces,
    buffers,
  };
}

export function parseMemoryMap(value: unknown): MemoryMapResult | undefined {
  if (!isObject(value) || !Array.isArray(value.functions)) {
    return undefined;
  }
  return {
    version: typeof value.version === 'number' ? value.version : null,
    functions: value.functions.map(parseFunctionMemoryMap).filter((f) => f !== undefined),
    diagnostics: Array.isArray(value.diagnostics)
      ? value.diagnostics.map(parseDiagnostic).filter((d): d is PreviewDiagnostic => d !== undefined)
      : [],
    ...(typeof value.note === 'string' ? { note: value.note } : {}),
  };
}

export interface RunParams {
  textDocument: { uri: string };
  function: string;
  seed?: number;
  workDoneToken?: string;
  specialisation?: number;
  specialisationKey?: string;
}

export interface RunOutput {
  name: string;
  maxAbsError: number;
  maxRelError: number;
  ok: boolean;
}

export interface RunResult {
  ok: boolean;
  outputs: RunOutput[];
  // One line: the verdict, or why it could not run.
  message: string;
  // The build and run log.
  log: string;
  // The chosen @pl.jit specialisation is gone: which one ran instead.
  note?: string;
}

function parseRunOutput(value: unknown): RunOutput | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.ok !== 'boolean') {
    return undefined;
  }
  const error = (x: unknown): number => (typeof x === 'number' ? x : Number.NaN);
  return { name: value.name, maxAbsError: error(value.maxAbsError), maxRelError: error(value.maxRelError), ok: value.ok };
}

export function parseRunResult(value: unknown): RunResult | undefined {
  if (!isObject(value) || typeof value.ok !== 'boolean') {
    return undefined;
  }
  return {
    ok: value.ok,
    outputs: Array.isArray(value.outputs) ? value.outputs.map(parseRunOutput).filter((o) => o !== undefined) : [],
    message: typeof value.message === 'string' ? value.message : '',
    log: typeof value.log === 'string' ? value.log : '',
    ...(typeof value.note === 'string' ? { note: value.note } : {}),
  };
}

export interface TimelineParams {
  textDocument: { uri: string };
  function?: string;
}

export interface TimelineLane {
  pipe: string;
  busy: number;
  utilisation: number;
}

export interface TimelineInstruction {
  name: string;
  pipe: string;
  // Cycles from the kernel's start.
  start: number;
  cycles: number;
  // 0-based source line of its statement.
  line: number;
}

export interface TimelineArrow {
  signal: string;
  wait: string;
  setTime: number;
  waitTime: number;
  setLine: number;
  waitLine: number;
}

export interface TimelineWait {
  pipe: string;
  signal: string;
  cycles: number;
  waitLine: number;
  setLine: number;
}

export interface FunctionTimeline {
  name: string;
  range: LspRange;
  total: number;
  lanes: TimelineLane[];
  instructions: TimelineInstruction[];
  arrows: TimelineArrow[];
  // Indices into instructions.
  criticalPath: number[];
  bottleneck: string | null;
  longestWait: TimelineWait | null;
  notes: string[];
}

export interface TimelineResult {
  version: number | null;
  frequencyHz: number | null;
  functions: FunctionTimeline[];
  // Why there is no timeline, or ''.
  message: string;
}

const counts = (value: Record<string, unknown>, keys: readonly string[]): boolean => keys.every((k) => isCount(value[k]));

function parseInstruction(value: unknown): TimelineInstruction | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.pipe !== 'string') {
    return undefined;
  }
  if (!counts(value, ['start', 'cycles', 'line'])) {
    return undefined;
  }
  return { name: value.name, pipe: value.pipe, start: value.start as number, cycles: value.cycles as number, line: value.line as number };
}

function parseArrow(value: unknown): TimelineArrow | undefined {
  if (!isObject(value) || typeof value.signal !== 'string' || typeof value.wait !== 'string') {
    return undefined;
  }
  const times = ['setTime', 'waitTime', 'setLine', 'waitLine'] as const;
  if (!counts(value, times)) {
    return undefined;
  }
  const [setTime, waitTime, setLine, waitLine] = times.map((k) => value[k] as number) as [number, number, number, number];
  return { signal: value.signal, wait: value.wait, setTime, waitTime, setLine, waitLine };
}

function parseWait(value: unknown): TimelineWait | null {
  if (!isObject(value) || typeof value.pipe !== 'string' || typeof value.signal !== 'string') {
    return null;
  }
  if (!counts(value, ['cycles', 'waitLine', 'setLine'])) {
    return null;
  }
  const { cycles, waitLine, setLine } = value as { cycles: number; waitLine: number; setLine: number };
  return { pipe: value.pipe, signal: value.signal, cycles, waitLine, setLine };
}

function parseLane(value: unknown): TimelineLane | undefined {
  if (!isObject(value) || typeof value.pipe !== 'string' || !isCount(value.busy)) {
    return undefined;
  }
  return { pipe: value.pipe, busy: value.busy, utilisation: isCount(value.utilisation) ? value.utilisation : 0 };
}

function listOf<T>(value: unknown, parse: (item: unknown) => T | undefined): T[] {
  return Array.isArray(value) ? value.map(parse).filter((item): item is T => item !== undefined) : [];
}

function parseFunctionTimeline(value: unknown): FunctionTimeline | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || !isCount(value.total)) {
    return undefined;
  }
  const instructions = listOf(value.instructions, parseInstruction);
  return {
    name: value.name,
    range: isRange(value.range) ? value.range : ORIGIN,
    total: value.total,
    lanes: listOf(value.lanes, parseLane),
    instructions,
    arrows: listOf(value.arrows, parseArrow),
    criticalPath: listOf(value.criticalPath, (i) => (isCount(i) && i < instructions.length ? i : undefined)),
    bottleneck: typeof value.bottleneck === 'string' ? value.bottleneck : null,
    longestWait: parseWait(value.longestWait),
    notes: listOf(value.notes, (n) => (typeof n === 'string' ? n : undefined)),
  };
}

export function parseTimeline(value: unknown): TimelineResult | undefined {
  if (!isObject(value) || !Array.isArray(value.functions)) {
    return undefined;
  }
  return {
    version: typeof value.version === 'number' ? value.version : null,
    frequencyHz: isCount(value.frequencyHz) && value.frequencyHz > 0 ? value.frequencyHz : null,
    functions: listOf(value.functions, parseFunctionTimeline),
    message: typeof value.message === 'string' ? value.message : '',
  };
}

export function parseSpecialisations(value: unknown): JitKernel[] {
  if (!isObject(value) || !Array.isArray(value.kernels)) {
    return [];
  }
  const kernels: JitKernel[] = [];
  for (const item of value.kernels) {
    if (!isObject(item) || typeof item.name !== 'string' || !Array.isArray(item.specialisations)) {
      continue;
    }
    const specialisations = item.specialisations.flatMap((s: unknown) =>
      isObject(s) && typeof s.index === 'number' && typeof s.label === 'string'
        ? [{ index: s.index, label: s.label, ...(typeof s.key === 'string' ? { key: s.key } : {}) }]
        : [],
    );
    kernels.push({ name: item.name, range: isRange(item.range) ? item.range : ORIGIN, specialisations });
  }
  return kernels;
}

// ptols/taskGraph (#28): the task graph of an orchestration function.
export interface TaskGraphParams {
  textDocument: { uri: string };
  function: string;
}

export interface TaskGraphTask {
  index: number;
  kernel: string;
  // "submit" | "spmd_submit" | "call" | "region"
  kind: string;
  // The call: a click on the task reveals it.
  range: LspRange;
  kernelRange: LspRange | null;
  // SPMD blocks ("1", "4", or "n").
  width: string;
  taskId: string;
  scope: string;
  loops: string[];
  // The loops drawn once around it and how often they run, outermost first.
  notes: string[];
  // The innermost loop drawn once around it (a cluster's index), or null.
  cluster: number | null;
}

/** A loop the graph draws once (DOT's subgraph cluster): a box around its tasks. */
export interface TaskGraphCluster {
  index: number;
  // "range(batch_cfg)", "parallel(branches)", "while"
  label: string;
  // How often it runs: "runs batch_cfg times at run time".
  note: string;
  // The loop drawn once around it, or null.
  parent: number | null;
}

export interface TaskGraphEdge {
  source: number;
  target: number;
  // "deps" | "data"
  kind: string;
  label: string;
}

export interface TaskGraphResult {
  version: number | null;
  function: string;
  tasks: TaskGraphTask[];
  edges: TaskGraphEdge[];
  message: string;
  clusters: TaskGraphCluster[];
}

export interface PassDiffParams {
  textDocument: { uri: string };
  function?: string;
}

/** The printed IR at one point of the pipeline, with its source map. */
export interface PassStage {
  name: string;
  content: string;
  entries: SourceMapEntry[];
}

export interface PassChange {
  name: string;
  description: string;
  /** Indices into the program's stages; equal when the pass changed nothing. */
  before: number;
  after: number;
  added: number;
  removed: number;
  /** [beforeStart, beforeEnd, afterStart, afterEnd]: 0-based lines, end exclusive. */
  changes: number[][];
}

export interface ProgramPassDiff {
  program: string;
  stages: PassStage[];
  passes: PassChange[];
}

export interface PassDiffResult {
  version: number | null;
  pipeline: string;
  programs: ProgramPassDiff[];
  diagnostics: PreviewDiagnostic[];
}

function parseStage(value: unknown): PassStage | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.content !== 'string') {
    return undefined;
  }
  const map = parseSourceMap({ content: value.content, entries: value.entries, version: null });
  return { name: value.name, content: value.content, entries: map?.entries ?? [] };
}

function parsePassChange(value: unknown, stages: number): PassChange | undefined {
  if (!isObject(value) || typeof value.name !== 'string') {
    return undefined;
  }
  const { before, after, added, removed } = value;
  if (!isLine(before) || !isLine(after) || before >= stages || after >= stages || !isCount(added) || !isCount(removed)) {
    return undefined;
  }
  const changes = (Array.isArray(value.changes) ? value.changes : []).filter(
    (c: unknown): c is number[] => Array.isArray(c) && c.length === 4 && c.every(isLine),
  );
  const description = typeof value.description === 'string' ? value.description : '';
  return { name: value.name, description, before, after, added, removed, changes };
}

function parseProgramPassDiff(value: unknown): ProgramPassDiff | undefined {
  if (!isObject(value) || typeof value.program !== 'string' || !Array.isArray(value.stages) || !Array.isArray(value.passes)) {
    return undefined;
  }
  const stages = value.stages.map(parseStage);
  if (stages.some((s) => s === undefined)) {
    return undefined;
  }
  const passes = value.passes.map((p: unknown) => parsePassChange(p, stages.length)).filter((p): p is PassChange => p !== undefined);
  return { program: value.program, stages: stages as PassStage[], passes };
}

export function parsePassDiff(value: unknown): PassDiffResult | undefined {
  if (!isObject(value) || !Array.isArray(value.programs)) {
    return undefined;
  }
  const programs = value.programs.map(parseProgramPassDiff).filter((p): p is ProgramPassDiff => p !== undefined);
  const diagnostics = Array.isArray(value.diagnostics)
    ? value.diagnostics.map(parseDiagnostic).filter((d): d is PreviewDiagnostic => d !== undefined)
    : [];
  return {
    version: typeof value.version === 'number' ? value.version : null,
    pipeline: typeof value.pipeline === 'string' ? value.pipeline : '',
    programs,
    diagnostics,
  };
}

export interface InstructionParams {
  name: string;
  target?: 'cce' | 'pto';
}

export interface InstructionOperand {
  name: string;
  traits: string;
}

/** One op an instruction of the generated code lowers (`ptols/instruction`). */
export interface InstructionEntry {
  instruction: string;
  target: string;
  op: string;
  form: string;
  description: string;
  pipe: string;
  operands: InstructionOperand[];
  attributes: string[];
  note: string;
}

export interface InstructionResult {
  entries: InstructionEntry[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function parseTask(value: unknown): TaskGraphTask | undefined {
  if (!isObject(value) || !isCount(value.index) || typeof value.kernel !== 'string' || !isRange(value.range)) {
    return undefined;
  }
  return {
    index: value.index,
    kernel: value.kernel,
    kind: text(value.kind),
    range: value.range,
    kernelRange: isRange(value.kernelRange) ? value.kernelRange : null,
    width: text(value.width) || '1',
    taskId: text(value.taskId),
    scope: text(value.scope),
    loops: listOf(value.loops, (l) => (typeof l === 'string' ? l : undefined)),
    notes: listOf(value.notes, (l) => (typeof l === 'string' ? l : undefined)),
    cluster: isCount(value.cluster) ? value.cluster : null,
  };
}

function parseCluster(value: unknown): TaskGraphCluster | undefined {
  if (!isObject(value) || !isCount(value.index)) {
    return undefined;
  }
  return { index: value.index, label: text(value.label), note: text(value.note), parent: isCount(value.parent) ? value.parent : null };
}

function parseEdge(value: unknown): TaskGraphEdge | undefined {
  if (!isObject(value) || !isCount(value.source) || !isCount(value.target)) {
    return undefined;
  }
  return { source: value.source, target: value.target, kind: text(value.kind), label: text(value.label) };
}

export function parseTaskGraph(value: unknown): TaskGraphResult | undefined {
  if (!isObject(value) || !Array.isArray(value.tasks)) {
    return undefined;
  }
  return {
    version: typeof value.version === 'number' ? value.version : null,
    function: text(value.function),
    tasks: listOf(value.tasks, parseTask),
    edges: listOf(value.edges, parseEdge),
    message: text(value.message),
    clusters: listOf(value.clusters, parseCluster),
  };
}

function parseInstructionEntry(value: unknown): InstructionEntry | undefined {
  if (!isObject(value) || typeof value.instruction !== 'string' || typeof value.op !== 'string') {
    return undefined;
  }
  const operands = (Array.isArray(value.operands) ? value.operands : [])
    .filter((o: unknown): o is Json => isObject(o) && typeof o.name === 'string')
    .map((o: Json) => ({ name: text(o.name), traits: text(o.traits) }));
  const attributes = (Array.isArray(value.attributes) ? value.attributes : []).filter((a: unknown): a is string => typeof a === 'string');
  return {
    instruction: value.instruction,
    target: text(value.target),
    op: value.op,
    form: text(value.form),
    description: text(value.description),
    pipe: text(value.pipe),
    operands,
    attributes,
    note: text(value.note),
  };
}

export function parseInstructionResult(value: unknown): InstructionResult | undefined {
  if (!isObject(value) || !Array.isArray(value.entries)) {
    return undefined;
  }
  return { entries: value.entries.map(parseInstructionEntry).filter((e): e is InstructionEntry => e !== undefined) };
}
