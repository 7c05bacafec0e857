# SPDX-License-Identifier: MIT
"""What the gotrace tests share when they read its lines."""


def shapes_collapsed(line):
    """LINE with the type arguments of its FUNC column as [...]: a shape's
    name may hold spaces (go.shape.struct { main.a int }), which would
    split the column."""
    out, depth = [], 0
    for i, c in enumerate(line):
        if depth == 0 and c == "[" and line.startswith("go.shape.", i + 1):
            depth = 1
            out.append("[...]")
        elif depth and c in "[]":
            depth += 1 if c == "[" else -1
        elif not depth:
            out.append(c)
    return "".join(out)
