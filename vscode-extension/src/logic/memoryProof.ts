/**
 * The memory map's proof line: no two buffers overlap in address while both are live, or the
 * first pair that does. Tiles of one reuse group share their buffer by design (MemoryReuse
 * gave it to tiles whose lifetimes do not meet, in-place ops and loop-carried values write
 * where their input lives): the check is between different buffers, over the bytes each tile
 * occupies and the statements over which it is live.
 */
import { hex } from './memoryLayout';
import type { FunctionMemoryMap, MemoryBuffer } from './protocol';

export interface Overlap {
  a: MemoryBuffer;
  b: MemoryBuffer;
  /** The statements over which both are live. */
  from: number;
  to: number;
}

export interface Proof {
  /** Pairs of tiles in one memory space compared. */
  pairs: number;
  overlap: Overlap | undefined;
}

function sameBuffer(a: MemoryBuffer, b: MemoryBuffer): boolean {
  return a.reuseGroup !== null && a.reuseGroup === b.reuseGroup;
}

function overlapOf(a: MemoryBuffer, b: MemoryBuffer): Overlap | undefined {
  const apart = a.start + a.valueSize <= b.start || b.start + b.valueSize <= a.start;
  const from = Math.max(a.firstUse.index, b.firstUse.index);
  const to = Math.min(a.lastUse.index, b.lastUse.index);
  return apart || from > to ? undefined : { a, b, from, to };
}

export function proveNoOverlap(fn: FunctionMemoryMap): Proof {
  let pairs = 0;
  for (let i = 0; i < fn.buffers.length; i++) {
    for (let j = i + 1; j < fn.buffers.length; j++) {
      const a = fn.buffers[i];
      const b = fn.buffers[j];
      if (a.space !== b.space || sameBuffer(a, b)) {
        continue;
      }
      pairs++;
      const overlap = overlapOf(a, b);
      if (overlap !== undefined) {
        return { pairs, overlap };
      }
    }
  }
  return { pairs, overlap: undefined };
}

const where = (b: MemoryBuffer): string => `${b.name} [${hex(b.start)}, ${hex(b.start + b.valueSize)})`;

/** The line under a function's title. */
export function proofText(proof: Proof): string {
  const overlap = proof.overlap;
  if (overlap === undefined) {
    const pairs = `${proof.pairs} pair${proof.pairs === 1 ? '' : 's'} of buffers checked`;
    return `\u2713 No two buffers overlap in address while both are live (${pairs}).`;
  }
  const statements = overlap.from === overlap.to ? `statement ${overlap.from}` : `statements ${overlap.from}\u2013${overlap.to}`;
  return `\u2717 ${where(overlap.a)} and ${where(overlap.b)} overlap in ${overlap.a.space} while both are live (${statements}).`;
}
