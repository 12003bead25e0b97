/**
 * Geometry of the memory map picture: one lane per memory space, program order from left to
 * right, addresses from the bottom of a lane (0) upwards, a box per buffer. Pure numbers and
 * strings so it is tested without a webview; memoryView.ts turns it into SVG.
 */
import type { FunctionMemoryMap, LspRange, MemoryBuffer, MemorySpaceInfo } from './protocol';

export interface LayoutOptions {
  /** Width of the whole picture in pixels. */
  width: number;
  laneHeight: number;
  /** Left room for the lane titles and address ticks. */
  gutter: number;
  laneGap: number;
  /** The thinnest a box is drawn, however small the buffer. */
  minBoxHeight: number;
  /** What a lane's height stands for: the space's capacity (default) or the bytes used. */
  scaleTo?: 'capacity' | 'used';
  /** Memory spaces not drawn. */
  hidden?: readonly string[];
}

export const DEFAULT_LAYOUT: LayoutOptions = { width: 900, laneHeight: 150, gutter: 120, laneGap: 36, minBoxHeight: 3 };

export interface LaneLayout {
  space: string;
  /** Top of the lane's plot area. */
  y: number;
  height: number;
  capacity: number;
  used: number;
  overflow: boolean;
  /** The address at the top of the lane: the capacity, or more when buffers overflow it. */
  scale: number;
  /** Where the capacity line is drawn; null when the space has no known capacity. */
  capacityY: number | null;
  title: string;
  detail: string;
}

export interface BoxLayout {
  name: string;
  space: string;
  x: number;
  y: number;
  width: number;
  height: number;
  overflow: boolean;
  /** Boxes of one reuse group share a colour; others get one each. */
  colour: number;
  /** Lines of the hover text. */
  tooltip: string[];
  /** Where a click takes the user: the buffer's first use. */
  reveal: LspRange;
  /**
   * The whole buffer when the tile occupies only its first bytes (it shares a larger buffer):
   * the box is the tile's sub-range, this outline the buffer around it.
   */
  extent: { y: number; height: number } | null;
}

export interface FunctionLayout {
  name: string;
  range: LspRange;
  width: number;
  height: number;
  /** The plot area's left and right edges (program order 0 and `statements`). */
  plotLeft: number;
  plotRight: number;
  statements: number;
  lanes: LaneLayout[];
  boxes: BoxLayout[];
}

export const COLOURS = 8;

/** Hardware order: the unified buffer first, then L1 and the cube's L0 buffers. */
const SPACE_ORDER = ['Vec', 'Mat', 'Left', 'Right', 'Acc', 'Bias'];

function spaceRank(space: string): number {
  const index = SPACE_ORDER.indexOf(space);
  return index < 0 ? SPACE_ORDER.length : index;
}

export function hex(address: number): string {
  return `0x${address.toString(16).toUpperCase().padStart(4, '0')}`;
}

export function bytes(count: number): string {
  if (count >= 1024 && count % 1024 === 0) {
    return `${count / 1024} KB`;
  }
  return `${count} B`;
}

/** The same words as the server's hover on a tile. */
export function addressText(buffer: MemoryBuffer): string {
  return `${buffer.space} [${hex(buffer.start)}, ${hex(buffer.start + buffer.size)}) · ${buffer.size} B`;
}

function useText(buffer: MemoryBuffer): string {
  const first = buffer.firstUse;
  const last = buffer.lastUse;
  const lines = first.range.start.line === last.range.start.line
    ? `line ${first.range.start.line + 1}`
    : `lines ${first.range.start.line + 1}–${last.range.start.line + 1}`;
  const statements = first.index === last.index ? `statement ${first.index}` : `statements ${first.index}–${last.index}`;
  return `live over ${statements} (${lines})`;
}

function tooltipFor(buffer: MemoryBuffer, capacity: number, overflow: boolean): string[] {
  const lines = [`${buffer.name}: ${addressText(buffer)}`];
  if (buffer.valueSize < buffer.size) {
    lines.push(`the tile: [${hex(buffer.start)}, ${hex(buffer.start + buffer.valueSize)}) · ${buffer.valueSize} B of the buffer`);
  }
  const type = buffer.shape.length > 0 ? `${buffer.dtype} [${buffer.shape.join(', ')}]` : buffer.dtype;
  if (type !== '') {
    lines.push(type);
  }
  lines.push(useText(buffer));
  if (buffer.reuseGroup !== null) {
    lines.push(`reuse group ${buffer.reuseGroup}`);
  }
  if (overflow) {
    lines.push(`ends past the ${capacity} B capacity of ${buffer.space}`);
  }
  return lines;
}

/** Every space with a capacity or a buffer, in hardware order. */
function spacesOf(fn: FunctionMemoryMap): MemorySpaceInfo[] {
  const spaces = new Map(fn.spaces.map((info) => [info.space, info]));
  for (const buffer of fn.buffers) {
    if (!spaces.has(buffer.space)) {
      const used = Math.max(...fn.buffers.filter((b) => b.space === buffer.space).map((b) => b.start + b.size));
      spaces.set(buffer.space, { space: buffer.space, capacity: 0, used, overflow: false });
    }
  }
  return [...spaces.values()].sort((a, b) => spaceRank(a.space) - spaceRank(b.space) || a.space.localeCompare(b.space));
}

function laneDetail(info: MemorySpaceInfo): string {
  if (info.capacity <= 0) {
    return `${bytes(info.used)} used`;
  }
  const percent = Math.round((info.used / info.capacity) * 100);
  const text = `${bytes(info.used)} of ${bytes(info.capacity)} (${percent}%)`;
  return info.overflow ? `overflow: ${text}` : text;
}

export function layoutFunction(fn: FunctionMemoryMap, options: LayoutOptions = DEFAULT_LAYOUT): FunctionLayout {
  const statements = Math.max(fn.statements, ...fn.buffers.map((b) => b.lastUse.index + 1), 1);
  const plotLeft = options.gutter;
  const plotRight = options.width - 10;
  const xOf = (index: number): number => plotLeft + ((plotRight - plotLeft) * index) / statements;
  const colours = new Map<number, number>();
  let nextColour = 0;
  const colourOf = (buffer: MemoryBuffer): number => {
    if (buffer.reuseGroup === null) {
      return nextColour++ % COLOURS;
    }
    let colour = colours.get(buffer.reuseGroup);
    if (colour === undefined) {
      colour = nextColour++ % COLOURS;
      colours.set(buffer.reuseGroup, colour);
    }
    return colour;
  };

  const lanes: LaneLayout[] = [];
  const boxes: BoxLayout[] = [];
  let y = options.laneGap;
  for (const info of spacesOf(fn).filter((s) => !(options.hidden ?? []).includes(s.space))) {
    const buffers = fn.buffers.filter((b) => b.space === info.space);
    const highest = Math.max(0, ...buffers.map((b) => b.start + b.size));
    const scale = options.scaleTo === 'used' ? Math.max(highest, 1) : Math.max(info.capacity, highest, 1);
    const yOf = (address: number): number => y + options.laneHeight - (options.laneHeight * address) / scale;
    const overflow = info.overflow || (info.capacity > 0 && highest > info.capacity);
    lanes.push({
      space: info.space,
      y,
      height: options.laneHeight,
      capacity: info.capacity,
      used: info.used,
      overflow,
      scale,
      capacityY: info.capacity > 0 && info.capacity <= scale ? yOf(info.capacity) : null,
      title: info.space,
      detail: laneDetail({ ...info, overflow }),
    });
    for (const buffer of buffers) {
      const top = yOf(buffer.start + buffer.valueSize);
      const bottom = yOf(buffer.start);
      const height = Math.max(bottom - top, options.minBoxHeight);
      const whole = bottom - yOf(buffer.start + buffer.size);
      const extent = buffer.valueSize < buffer.size ? { y: bottom - Math.max(whole, height), height: Math.max(whole, height) } : null;
      const beyond = info.capacity > 0 && buffer.start + buffer.size > info.capacity;
      const left = xOf(buffer.firstUse.index);
      boxes.push({
        name: buffer.name,
        space: buffer.space,
        x: left,
        y: bottom - height,
        width: xOf(buffer.lastUse.index + 1) - left,
        height,
        overflow: beyond,
        colour: colourOf(buffer),
        tooltip: tooltipFor(buffer, info.capacity, beyond),
        reveal: buffer.firstUse.range,
        extent,
      });
    }
    y += options.laneHeight + options.laneGap;
  }
  return {
    name: fn.name,
    range: fn.range,
    width: options.width,
    height: y,
    plotLeft,
    plotRight,
    statements,
    lanes,
    boxes,
  };
}
