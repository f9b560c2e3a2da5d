#!/usr/bin/env python3
"""Runs the commands of the project's Markdown docs and compares their output with the text.

Every fenced block whose info string is `console` is a session: lines starting with `$ ` are
commands (a line ending in a backslash continues on the next), the lines after a command, up to
the next one, are its standard output as the docs show it. Matching, line by line, with trailing
blanks ignored:
  - a line `...` stands for any number of lines (none included);
  - `...` inside a line stands for any text;
  - `~NUMBER` is a host-dependent number (a run time): any number within a factor of 10 of it;
  - a command ending in `# ~N s` must finish within a factor of 10 of N seconds.
An HTML comment right before a block, `<!-- doctest: OPTIONS -->`, sets `exit=N` (the commands'
expected exit status, default 0), `timeout=S` (default 600) or `skip=REASON` (not run; the
reason is printed: installs, builds and the benchmarks of bench.md only).

Each file's sessions run in order, in one scratch folder holding a copy of the repository's
scenarios/, scripts/, docs/reference/, tests/vectors/ and tests/data/ and `build/release/qcesim` (and `qcesim` on PATH)
pointing at the binary under test: a command writes there, never into the repository.
Standard error is not compared (progress, run times) unless a command redirects it. The exit
status is the last command's of a pipeline (no pipefail: `| head` may stop the writer early).

Blocks that are not `console` are never run; a command-looking line (`$ `, `build/release/qcesim`,
`./scripts/`) in a block without an info string is an error, so no example escapes the check:
usage lines go in `synopsis` blocks, other text in `text` blocks.

  scripts/doctest.py --binary build/release/qcesim [FILE.md ...]     check (exit 1 on a difference)
  scripts/doctest.py --binary build/release/qcesim --update [FILE...] rewrite the outputs that differ
(an output the docs elide with `...` keeps its shape: each line it shows becomes the new output's
line it stands for, cut where it was cut; where the shape no longer fits, the whole output)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILES = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
COMMANDISH = re.compile(r"^(\$ |build/release/qcesim |\./scripts/|bench/)")
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


class Block:
    def __init__(self, path, first_line, options, lines):
        self.path, self.first_line, self.options, self.lines = path, first_line, options, lines

    def sessions(self):
        """(command, its line number, expected output lines) in order."""
        out, i = [], 0
        while i < len(self.lines):
            line = self.lines[i]
            if not line.startswith("$ "):
                raise SystemExit(f"{self.path}:{self.first_line + i}: expected a command ($ ...) first in a console block, found {line!r}")
            at = self.first_line + i
            cmd = line[2:]
            while cmd.endswith("\\") and i + 1 < len(self.lines):
                i += 1
                cmd = cmd + "\n" + self.lines[i]  # bash reads the backslash-newline as one line
            i += 1
            expected = []
            while i < len(self.lines) and not self.lines[i].startswith("$ "):
                expected.append(self.lines[i])
                i += 1
            while expected and not expected[-1].strip():
                expected.pop()
            out.append((cmd, at, expected))
        return out


def parse(path):
    """The console blocks of a Markdown file; exits on a command outside one."""
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(.*)$", lines[i])
        if not m:
            i += 1
            continue
        info = m.group(2).strip()
        start = i
        i += 1
        body = []
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i])
            i += 1
        i += 1
        if info == "console":
            prev = start - 1
            while prev >= 0 and not lines[prev].strip():
                prev -= 1
            options = {}
            if prev >= 0:
                c = re.match(r"^<!--\s*doctest:\s*(.*?)\s*-->$", lines[prev].strip())
                if c:
                    text = c.group(1)
                    if "skip=" in text:  # the reason is the rest of the comment
                        text, _, options["skip"] = text.partition("skip=")
                    for part in re.split(r";\s*", text.strip().rstrip(";")):
                        if part:
                            key, _, value = part.partition("=")
                            options[key.strip()] = value.strip()
            blocks.append(Block(path, start + 2, options, body))
        elif info in ("", "sh", "bash", "shell"):
            for k, line in enumerate(body):
                if COMMANDISH.match(line.strip()):
                    raise SystemExit(f"{path}:{start + 2 + k}: a command outside a console block (or mark the block "
                                     f"`synopsis` if it is a usage line): {line.strip()!r}")
    return blocks


def pattern(expected):
    """A regex for the whole output, and the host-dependent numbers' nominal values in order."""
    parts, nominal = [], []
    for line in expected:
        line = line.rstrip()
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        rx = ""
        for token in re.split(r"(\.\.\.|~" + NUMBER + ")", line):
            if token == "...":
                rx += r"[^\n]*?"
            elif token.startswith("~") and re.fullmatch("~" + NUMBER, token):
                nominal.append(float(token[1:]))
                rx += "(" + NUMBER + ")"
            else:
                rx += re.escape(token)
        parts.append(rx + r"\n")
    return "".join(parts), nominal


def matches(expected, actual_lines):
    text = "".join(l + "\n" for l in actual_lines)
    rx, nominal = pattern(expected)
    m = re.fullmatch(rx, text, re.S)
    if not m:
        return False, "the output differs"
    for k, (value, nom) in enumerate(zip(m.groups(), nominal)):
        v = float(value)
        if nom > 0 and not (nom / 10 <= v <= nom * 10):
            return False, f"host-dependent number {k + 1}: {v} is not within a factor of 10 of ~{nom:g}"
    return True, ""


def reelide(expected, out):
    """The new output in the shape of the old elided one: every line the docs show is replaced by
    the output line it stands for (the same text, numbers and column widths free), cut where it
    was cut. None when the shape no longer fits (a shown line is gone, or has another text)."""
    if "..." not in "\n".join(expected):
        return None
    res, j, free = [], 0, False
    for e in expected:
        e = e.rstrip()
        if e == "...":
            res.append(e)
            free = True
            continue
        cut = e.endswith("...") and e != "..."
        body = e[:-3] if cut else e
        if "..." in body or "~" in body:
            return None
        rx = ""
        for token in re.split("(" + NUMBER + "| +)", body):
            if re.fullmatch(NUMBER, token):
                rx += NUMBER
            elif token and token.strip() == "":
                rx += " +"
            else:
                rx += re.escape(token)
        full = re.compile(rx + ("" if cut else "$"))
        if not free:
            found = full.match(out[j]) if j < len(out) else None
            if found is None:
                return None
            j += 1
        else:
            # After `...` the line it stands for is the one that keeps most of its numbers (a
            # sweep's point, a variant's row), the first such on a tie.
            old = re.findall(NUMBER, body)
            best, found = -1, None
            for k in range(j, len(out)):
                m = full.match(out[k])
                if m:
                    score = sum(a == b for a, b in zip(old, re.findall(NUMBER, m.group(0))))
                    if score > best:
                        best, found, at = score, m, k
            if found is None:
                return None
            j = at + 1
        res.append(found.group(0) + "..." if cut else out[j - 1])
        free = False
    if not free and j != len(out):
        return None
    return res


def scratch(binary):
    d = tempfile.mkdtemp(prefix="qcesim-doctest-")
    shutil.copytree(os.path.join(ROOT, "scenarios"), os.path.join(d, "scenarios"))
    shutil.copytree(os.path.join(ROOT, "docs", "reference"), os.path.join(d, "docs", "reference"))
    shutil.copytree(os.path.join(ROOT, "tests", "vectors"), os.path.join(d, "tests", "vectors"))
    shutil.copytree(os.path.join(ROOT, "tests", "data"), os.path.join(d, "tests", "data"))
    shutil.copytree(os.path.join(ROOT, "scripts"), os.path.join(d, "scripts"))
    os.makedirs(os.path.join(d, "build", "release"))
    os.symlink(os.path.abspath(binary), os.path.join(d, "build", "release", "qcesim"))
    return d


def run_file(path, binary, update):
    blocks = parse(path)
    if not blocks:
        return 0, 0
    d = scratch(binary)
    env = dict(os.environ, PATH=os.path.join(d, "build", "release") + os.pathsep + os.environ.get("PATH", ""),
               LC_ALL="C.UTF-8", SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    failures, ran, edits = 0, 0, []
    try:
        for b in blocks:
            if "skip" in b.options:
                print(f"{path}:{b.first_line}: not run: {b.options['skip']}")
                continue
            want_exit = int(b.options.get("exit", "0"))
            timeout = float(b.options.get("timeout", "600"))
            for cmd, at, expected in b.sessions():
                t0 = time.monotonic()
                try:
                    p = subprocess.run(["bash", "-c", cmd], cwd=d, env=env, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
                except subprocess.TimeoutExpired:
                    print(f"{path}:{at}: FAILED: {cmd!r} ran longer than {timeout:g} s")
                    failures += 1
                    continue
                took = time.monotonic() - t0
                ran += 1
                out = p.stdout.decode("utf-8", "replace").split("\n")
                if out and out[-1] == "":
                    out.pop()
                out = [l.rstrip() for l in out]
                while out and not out[-1]:
                    out.pop()
                problems = []
                if p.returncode != want_exit:
                    problems.append(f"exit status {p.returncode}, expected {want_exit}")
                ok, why = matches(expected, out)
                if not ok:
                    problems.append(why)
                    if update and p.returncode == want_exit:
                        shaped = reelide(expected, out)
                        edits.append((at, len(expected), shaped if shaped and matches(shaped, out)[0] else out))
                t = re.search(r"#\s*~(" + NUMBER + r")\s*s\s*$", cmd)
                if t and not (float(t.group(1)) / 10 <= took <= float(t.group(1)) * 10):
                    problems.append(f"took {took:.1f} s, not within a factor of 10 of ~{t.group(1)} s")
                if problems:
                    failures += 1
                    print(f"{path}:{at}: FAILED: {cmd!r}: " + "; ".join(problems))
                    if not ok:
                        print("--- expected\n" + "\n".join(expected) + "\n--- found\n" + "\n".join(out) + "\n---")
                    err = p.stderr.decode("utf-8", "replace").strip().split("\n")
                    if p.returncode != want_exit and err:
                        print("stderr: " + "\n        ".join(err[-8:]))
                else:
                    print(f"{path}:{at}: ok ({took:.1f} s)")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if update and edits:
        lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
        for at, n_old, new in sorted(edits, reverse=True):
            # The command's line (1-based `at`) and its continuation lines; then the old output.
            i = at - 1
            while lines[i].endswith("\\"):
                i += 1
            lines[i + 1:i + 1 + n_old] = new
        open(os.path.join(ROOT, path), "w", encoding="utf-8").write("\n".join(lines))
        print(f"{path}: rewrote {len(edits)} output(s)")
    return ran, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="the qcesim binary under test")
    ap.add_argument("--update", action="store_true", help="rewrite the outputs that differ (exit status still says so)")
    ap.add_argument("files", nargs="*", help="Markdown files relative to the repository (default: README.md and docs/*.md)")
    a = ap.parse_args()
    total, failed = 0, 0
    for f in a.files or DEFAULT_FILES:
        ran, bad = run_file(f, a.binary, a.update)
        total += ran
        failed += bad
    print(f"{total} commands run, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
