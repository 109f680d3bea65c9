"""The entity-relationship diagram of a domain: its tables (from the manifest, which the loader
holds equal to ``schema.sql``) as boxes listing their columns, primary keys in bold, and one line
per foreign key to the table it references. A self-contained SVG, every name escaped; laid out
in columns by reference depth (a table stands right of the tables it references). This module
must not read anything but the manifest it is given.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from scaleenv_mcp.domain.manifest import DomainManifest, TableSpec

__all__ = ["render_er_svg"]

_CHAR_W, _LINE_H, _HEAD_H, _GAP_X, _GAP_Y, _PAD = 7.0, 16, 24, 80, 24, 16
_QUOTE = {'"': "&quot;"}


def _depths(tables: list[TableSpec]) -> dict[str, int]:
    names = {t.name for t in tables}
    refs = {t.name: {fk.table for fk in t.foreign_keys if fk.table in names and fk.table != t.name} for t in tables}
    depth: dict[str, int] = {}

    def visit(name: str, seen: frozenset[str]) -> int:
        if name not in depth:
            parents = [visit(p, seen | {name}) for p in sorted(refs[name]) if p not in seen]
            depth[name] = 1 + max(parents, default=-1)
        return depth[name]

    for table in tables:
        visit(table.name, frozenset())
    return depth


def render_er_svg(manifest: DomainManifest) -> str:
    tables = manifest.tables
    depth = _depths(tables)
    columns: dict[int, list[TableSpec]] = {}
    for table in tables:
        columns.setdefault(depth[table.name], []).append(table)
    boxes: dict[str, tuple[float, float, float, float]] = {}
    x = float(_PAD)
    for level in sorted(columns):
        width = max(max(len(c.name) + len(c.type) + 3 for c in t.columns) for t in columns[level]) * _CHAR_W + 20
        width = max(width, max(len(t.name) for t in columns[level]) * _CHAR_W + 24)
        y = float(_PAD)
        for table in columns[level]:
            height = _HEAD_H + _LINE_H * len(table.columns) + 6
            boxes[table.name] = (x, y, width, height)
            y += height + _GAP_Y
        x += width + _GAP_X
    total_w = x - _GAP_X + _PAD
    total_h = max((by + bh for _, by, _, bh in boxes.values()), default=0) + _PAD
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" '
           f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           '<defs><marker id="er-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#57606a"/></marker></defs>',
           '<rect width="100%" height="100%" fill="white"/>']
    for table in tables:
        sx, sy, sw, _ = boxes[table.name]
        for fk in table.foreign_keys:
            if fk.table not in boxes:
                continue
            tx, ty, tw, _ = boxes[fk.table]
            row = next((i for i, c in enumerate(table.columns) if c.name == fk.columns[0]), 0)
            y1 = sy + _HEAD_H + _LINE_H * row + 11
            x1, x2, y2 = (sx, tx + tw, ty + _HEAD_H / 2) if tx < sx else (sx + sw, tx, ty + _HEAD_H / 2)
            mid = (x1 + x2) / 2
            label = escape(f"{table.name}.{', '.join(fk.columns)} -> {fk.table}({', '.join(fk.references)})")
            out.append(f'<path d="M {x1:.1f} {y1:.1f} C {mid:.1f} {y1:.1f} {mid:.1f} {y2:.1f} {x2:.1f} {y2:.1f}" '
                       f'fill="none" stroke="#57606a" stroke-width="1.2" marker-end="url(#er-arrow)">'
                       f'<title>{label}</title></path>')
    for table in tables:
        bx, by, bw, bh = boxes[table.name]
        out.append(f'<g data-table="{escape(table.name, _QUOTE)}"><rect x="{bx:.1f}" y="{by:.1f}" width="{bw:.1f}" '
                   f'height="{bh:.1f}" rx="5" fill="#f6f8fa" stroke="#57606a"/>'
                   f'<rect x="{bx:.1f}" y="{by:.1f}" width="{bw:.1f}" height="{_HEAD_H}" rx="5" fill="#ddf4ff" '
                   f'stroke="#57606a"/><text x="{bx + 8:.1f}" y="{by + 16:.1f}" font-weight="bold">'
                   f'{escape(table.name)}</text>')
        for i, column in enumerate(table.columns):
            weight = ' font-weight="bold"' if column.name in table.primary_key else ""
            kind = column.type + ("?" if column.nullable else "")
            out.append(f'<text x="{bx + 8:.1f}" y="{by + _HEAD_H + _LINE_H * i + 12:.1f}"{weight}>{escape(column.name)}'
                       f' <tspan fill="#656d76">{escape(kind)}</tspan></text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
