#!/usr/bin/env python3
"""Checks every relative link in the README and docs/: the file it names exists, and its #anchor
is a heading there (as GitHub makes heading anchors: lower case, punctuation dropped, spaces as
hyphens, a repeated heading numbered -1, -2 ...) or an explicit id. Exit 1 listing each broken
link as FILE:LINE: TARGET. Usage: check-links.py [REPO_ROOT]"""
import os
import re
import sys
import urllib.parse

LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
EXPLICIT_ID = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def slug(text):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading counts by its text
    text = re.sub(r"<[^>]+>", "", text)
    out = []
    for c in text.lower():
        if c.isalnum() or c in "-_":
            out.append(c)
        elif c == " ":
            out.append("-")
    return "".join(out)


def anchors_of(path, cache={}):
    if path in cache:
        return cache[path]
    found, seen, in_fence = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            found.update(EXPLICIT_ID.findall(line))
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else f"{s}-{n}")
    cache[path] = found
    return found


def links_of(path):
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            line = re.sub(r"`[^`]*`", "", line)  # code spans hold no links
            for target in LINK.findall(line):
                yield number, target


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    files = [os.path.join(root, "README.md")]
    for folder in ("docs", os.path.join("docs", "reference")):
        d = os.path.join(root, folder)
        files += sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".md"))
    broken, checked = [], 0
    for path in files:
        for number, target in links_of(path):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
                continue
            checked += 1
            file_part, _, anchor = target.partition("#")
            dest = path if not file_part else os.path.normpath(
                os.path.join(os.path.dirname(path), urllib.parse.unquote(file_part)))
            where = f"{os.path.relpath(path, root)}:{number}: {target}"
            if not os.path.exists(dest):
                broken.append(f"{where} (no file {os.path.relpath(dest, root)})")
            elif anchor and dest.endswith(".md") and urllib.parse.unquote(anchor) not in anchors_of(dest):
                broken.append(f"{where} (no heading with that anchor)")
    for b in broken:
        print(b)
    print(f"check-links: {checked} links in {len(files)} files, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
