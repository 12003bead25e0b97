/**
 * Where the timeline view draws things (pure, so tests check it without VS Code): a lane per
 * pipe, a box per instruction at its predicted start and length, an arrow per set → wait from
 * the setting pipe's lane to the waiting one's, and a cycle axis.
 */
import type { FunctionTimeline, TimelineInstruction } from './protocol';

export interface TimelineLayoutOptions {
  /** The picture's width in pixels. */
  width: number;
  laneHeight: number;
  /** Room left of the plot for each lane's title and figures. */
  labelWidth: number;
  /** Most instruction boxes drawn (a long loop repeats its body): the rest are left out. */
  maxBoxes: number;
}

export const DEFAULT_TIMELINE_LAYOUT: TimelineLayoutOptions = { width: 900, laneHeight: 34, labelWidth: 150, maxBoxes: 4000 };

/** The pipes in the order lanes are drawn (data moves in, is computed, moves out). */
export const PIPE_ORDER: readonly string[] = ['S', 'MTE2', 'MTE1', 'M', 'V', 'FIX', 'MTE3'];

export interface TimelineLane {
  pipe: string;
  y: number;
  height: number;
  title: string;
  /** `1,118 cycles busy (66 %)`. */
  detail: string;
  bottleneck: boolean;
}

export interface InstructionBox {
  /** Index into the function's instructions. */
  index: number;
  name: string;
  pipe: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** 0-based source line a click reveals. */
  line: number;
  critical: boolean;
  colour: number;
  tooltip: string[];
}

export interface TimelineArrowLayout {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  tooltip: string;
  /** 0-based source line of the wait. */
  line: number;
}

export interface TimelineLayout {
  width: number;
  height: number;
  plotLeft: number;
  plotRight: number;
  lanes: TimelineLane[];
  boxes: InstructionBox[];
  arrows: TimelineArrowLayout[];
  ticks: { x: number; label: string }[];
  /** Instructions not drawn (beyond maxBoxes). */
  leftOut: number;
}

const AXIS_HEIGHT = 22;
const LANE_GAP = 6;
const BOX_MARGIN = 5;

export const cycles = (n: number): string => Math.round(n).toLocaleString('en-US');

function laneOrder(fn: FunctionTimeline): string[] {
  const pipes = new Set<string>();
  for (const lane of fn.lanes) {
    pipes.add(lane.pipe);
  }
  for (const arrow of fn.arrows) {
    pipes.add(arrow.signal).add(arrow.wait);
  }
  const rank = (pipe: string): number => {
    const at = PIPE_ORDER.indexOf(pipe);
    return at < 0 ? PIPE_ORDER.length : at;
  };
  return [...pipes].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** About five round cycle counts from 0 to `total`. */
export function axisTicks(total: number): number[] {
  if (total <= 0) {
    return [0];
  }
  const rough = total / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? rough;
  const ticks: number[] = [];
  for (let t = 0; t <= total; t += step) {
    ticks.push(t);
  }
  return ticks;
}

function instructionTooltip(i: TimelineInstruction, total: number): string[] {
  const share = total > 0 ? Math.round((100 * i.cycles) / total) : 0;
  return [
    `${i.name} on ${i.pipe}: ${cycles(i.cycles)} cycles (${share} % of the kernel)`,
    `from cycle ${cycles(i.start)} to ${cycles(i.start + i.cycles)}`,
    `line ${i.line + 1}`,
  ];
}

export function layoutTimeline(fn: FunctionTimeline, options: TimelineLayoutOptions = DEFAULT_TIMELINE_LAYOUT): TimelineLayout {
  const plotLeft = options.labelWidth;
  const plotRight = Math.max(options.width - 12, plotLeft + 40);
  const total = Math.max(fn.total, 1);
  const x = (time: number): number => plotLeft + (Math.min(Math.max(time, 0), total) / total) * (plotRight - plotLeft);
  const busy = new Map(fn.lanes.map((lane) => [lane.pipe, lane]));
  const lanes: TimelineLane[] = laneOrder(fn).map((pipe, row) => {
    const lane = busy.get(pipe);
    const share = lane === undefined ? 0 : Math.round(lane.utilisation * 100);
    return {
      pipe,
      y: AXIS_HEIGHT + row * (options.laneHeight + LANE_GAP),
      height: options.laneHeight,
      title: pipe,
      detail: lane === undefined ? 'no work' : `${cycles(lane.busy)} cycles busy (${share} %)`,
      bottleneck: pipe === fn.bottleneck,
    };
  });
  const laneOf = new Map(lanes.map((lane) => [lane.pipe, lane]));
  const critical = new Set(fn.criticalPath);
  const boxes: InstructionBox[] = [];
  fn.instructions.slice(0, options.maxBoxes).forEach((instruction, index) => {
    const lane = laneOf.get(instruction.pipe);
    if (lane === undefined) {
      return;
    }
    boxes.push({
      index,
      name: instruction.name,
      pipe: instruction.pipe,
      x: x(instruction.start),
      y: lane.y + BOX_MARGIN,
      width: Math.max(x(instruction.start + instruction.cycles) - x(instruction.start), 1),
      height: lane.height - 2 * BOX_MARGIN,
      line: instruction.line,
      critical: critical.has(index),
      colour: Math.max(PIPE_ORDER.indexOf(instruction.pipe), 0),
      tooltip: instructionTooltip(instruction, fn.total),
    });
  });
  const arrows: TimelineArrowLayout[] = [];
  for (const arrow of fn.arrows) {
    const from = laneOf.get(arrow.signal);
    const to = laneOf.get(arrow.wait);
    if (from === undefined || to === undefined) {
      continue;
    }
    const down = to.y > from.y;
    arrows.push({
      x1: x(arrow.setTime),
      y1: down ? from.y + from.height : from.y,
      x2: x(arrow.waitTime),
      y2: down ? to.y : to.y + to.height,
      tooltip: `${arrow.signal} → ${arrow.wait}: set at cycle ${cycles(arrow.setTime)} (line ${arrow.setLine + 1}), waited for until ${cycles(arrow.waitTime)} (line ${arrow.waitLine + 1})`,
      line: arrow.waitLine,
    });
  }
  const bottom = lanes.length > 0 ? lanes[lanes.length - 1].y + options.laneHeight : AXIS_HEIGHT;
  return {
    width: options.width,
    height: bottom + 8,
    plotLeft,
    plotRight,
    lanes,
    boxes,
    arrows,
    ticks: axisTicks(fn.total).map((t) => ({ x: x(t), label: cycles(t) })),
    leftOut: Math.max(fn.instructions.length - options.maxBoxes, 0),
  };
}

/** The layout for a panel `width` pixels wide (the body's padding taken off), within reason. */
export function timelineLayoutForWidth(width: number | undefined): TimelineLayoutOptions {
  if (width === undefined || !Number.isFinite(width)) {
    return DEFAULT_TIMELINE_LAYOUT;
  }
  return { ...DEFAULT_TIMELINE_LAYOUT, width: Math.round(Math.min(Math.max(width - 40, 480), 4000)) };
}
