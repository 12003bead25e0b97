"""The memory map as an SVG picture (``ptoc compile --memory-map map.svg``).

One lane per function and memory space, stacked: program order (statement index) runs left
to right, the address top to bottom; each buffer is a box from its first to its last use,
its address range high; a dashed line marks the space's capacity; a buffer that ends beyond
the capacity, and the lane's title, are red. Every box has a ``<title>`` (the tooltip) and
``data-`` attributes, so tools and tests can read the picture back.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from .memory_map import Buffer, FunctionMap, SpaceUse

WIDTH = 720
LEFT = 90  # room for the address labels
RIGHT = 20
LANE_HEIGHT = 160
TITLE_HEIGHT = 28
GAP = 24
PALETTE = ("#4e79a7", "#59a14f", "#edc948", "#b07aa1", "#76b7b2", "#ff9da7", "#9c755f")
OVERFLOW = "#e15759"


def render_svg(maps: Sequence[FunctionMap]) -> str:
    lanes = [(m, s) for m in maps for s in m.spaces]
    height = max(len(lanes), 1) * (TITLE_HEIGHT + LANE_HEIGHT + GAP) + GAP
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
    ]
    if not lanes:
        out.append(f'<text x="{LEFT}" y="{GAP + 12}">no on-chip buffers</text>')
    top = GAP
    for fn, space in lanes:
        out += _lane(fn, space, top)
        top += TITLE_HEIGHT + LANE_HEIGHT + GAP
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _lane(fn: FunctionMap, space: SpaceUse, top: int) -> list[str]:
    buffers = [b for b in fn.buffers if b.space == space.space]
    extent = max(space.capacity, space.used)
    scale = LANE_HEIGHT / extent
    plot_width = WIDTH - LEFT - RIGHT
    step = plot_width / max(fn.statements, 1)
    y0 = top + TITLE_HEIGHT
    title_colour = OVERFLOW if space.overflow else "black"
    title = f"{fn.name} · {space.space}: {space.used} of {space.capacity} B" + (
        " — overflow" if space.overflow else ""
    )
    out = [
        f'<g class="lane" data-function={quoteattr(fn.name)} data-space="{space.space}" '
        f'data-capacity="{space.capacity}" data-used="{space.used}" '
        f'data-overflow="{str(space.overflow).lower()}">',
        f'<text class="lane-title" x="{LEFT}" y="{top + 18}" fill="{title_colour}" '
        f'font-weight="bold">{escape(title)}</text>',
        f'<rect x="{LEFT}" y="{y0}" width="{plot_width}" height="{LANE_HEIGHT}" '
        'fill="#f4f4f4" stroke="#999"/>',
        f'<text x="{LEFT - 6}" y="{y0 + 10}" text-anchor="end">0x0</text>',
    ]
    for colour_index, buffer in enumerate(buffers):
        out.append(_box(buffer, colour_index, space, y0, scale, step))
    capacity_y = y0 + space.capacity * scale
    out += [
        f'<line class="capacity" x1="{LEFT}" y1="{capacity_y:.1f}" x2="{LEFT + plot_width}" '
        f'y2="{capacity_y:.1f}" stroke="#222" stroke-width="1.5" stroke-dasharray="6 3"/>',
        f'<text x="{LEFT - 6}" y="{capacity_y:.1f}" text-anchor="end">{hex(space.capacity)}</text>',
        "</g>",
    ]
    return out


def _box(
    buffer: Buffer, colour_index: int, space: SpaceUse, y0: float, scale: float, step: float
) -> str:
    overflow = buffer.end > space.capacity
    colour = OVERFLOW if overflow else PALETTE[(buffer.reuse_group or colour_index) % 7]
    x = LEFT + buffer.first_use.index * step
    width = (buffer.last_use.index - buffer.first_use.index + 1) * step
    y = y0 + buffer.start * scale
    height = max(buffer.size * scale, 1.0)
    shape = "x".join(str(d) for d in buffer.shape)
    tooltip = (
        f"{buffer.name}: {buffer.space} [{hex(buffer.start)}, {hex(buffer.end)}) "
        f"{buffer.size} B · {buffer.dtype}[{shape}] · statements "
        f"{buffer.first_use.index}–{buffer.last_use.index} · line {buffer.first_use.span.line}"
    )
    label = (
        f'<text x="{x + 3:.1f}" y="{y + min(height, 14) - 3:.1f}" fill="white">'
        f"{escape(buffer.name)}</text>"
        if height >= 12
        else ""
    )
    group = "" if buffer.reuse_group is None else f' data-reuse-group="{buffer.reuse_group}"'
    return (
        f'<g class="{"buffer overflow" if overflow else "buffer"}" '
        f'data-name={quoteattr(buffer.name)} data-start="{buffer.start}" '
        f'data-size="{buffer.size}" data-first="{buffer.first_use.index}" '
        f'data-last="{buffer.last_use.index}"{group}>'
        f"<title>{escape(tooltip)}</title>"
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" '
        f'fill="{colour}" stroke="white"/>{label}</g>'
    )


__all__ = ["render_svg"]
