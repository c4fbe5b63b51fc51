#!/usr/bin/env python3
"""The topic folders under core/include/kernwerk/impl/ form layers: no folder includes, through
any chain of includes, a header of a folder that includes it back. A kernwerk::nearest call
then goes from the public header through each folder once (docs/architecture.md's second
table lists them from the bottom up). Prints the folders' order, bottom first, and each
folder's direct dependencies; exits 1 naming the includes that close a cycle."""
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "core", "include")
impl = os.path.join(root, "kernwerk", "impl")
include = re.compile(r'^\s*#\s*include\s+"kernwerk/impl/([^"]+)"', re.M)


def folder_of(relative):  # "nearest/dispatch.hpp" -> "nearest"; "workspace.hpp" -> None (shared)
    return relative.split("/")[0] if "/" in relative else None


edges = {}  # folder -> {folder: [the includes that make the edge]}
for directory, _, files in os.walk(impl):
    for name in files:
        path = os.path.join(directory, name)
        source = folder_of(os.path.relpath(path, impl))
        if source is None:
            continue
        with open(path) as f:
            for target in include.findall(f.read()):
                target_folder = folder_of(target)
                if target_folder is None or target_folder == source:
                    continue
                edges.setdefault(source, {}).setdefault(target_folder, []).append(
                    f"impl/{os.path.relpath(path, impl)} includes impl/{target}")
folders = sorted({f for f in os.listdir(impl) if os.path.isdir(os.path.join(impl, f))})

# Depth-first search: a folder met again while it is open closes a cycle; the order in which
# folders complete is the layering, bottom first.
order, done = [], set()


def visit(folder, path):
    """Returns the cycle found under `folder` (the folders in turn, the first one again)."""
    for target in sorted(edges.get(folder, {})):
        if target in path:
            return path[path.index(target):] + [target]
        if target not in done:
            cycle = visit(target, path + [target])
            if cycle:
                return cycle
    done.add(folder)
    order.append(folder)
    return None


for folder in folders:
    cycle = None if folder in done else visit(folder, [folder])
    if cycle:
        print("impl/ folders include each other: " + " -> ".join(cycle))
        for a, b in zip(cycle, cycle[1:]):
            for why in edges[a][b][:3]:
                print("  " + why)
        sys.exit(1)
print("impl/ folders, bottom first: " + ", ".join(order))
for folder in order:
    print(f"  {folder}: {', '.join(sorted(edges.get(folder, {}))) or '(only the shared headers)'}")
