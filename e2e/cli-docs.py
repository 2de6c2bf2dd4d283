#!/usr/bin/env python3
"""Runs every command block of a Markdown page (docs/cli.md by default) and compares each command's output
with the page's, so that the page shows what the plugin prints.

A block is a ```console fence: lines starting with `$ ` are commands, the lines after one, up to the next
command, are its output (stdout and stderr). Before a block, HTML comments steer the check:

  <!-- cli-docs: example -->            the block is an example only (another test checks it): not run
  <!-- cli-docs: setup                 shell lines run before the block (bash, repository root, set -e);
  ...                                   their output is not compared
  -->

Outputs are compared after normalising what changes from run to run: timestamps, uids, durations and ages
(`33s`, `2m10s`, `in 115s`, `0.4 s`), rates, and runs of spaces (column widths follow the ages). A read-only
command (kubectl syncgc tree|preview|why|status, kubectl get) whose output does not match yet is run again
for up to --settle seconds, since the cluster's state converges (a cascade in progress); any other command
runs once. Exit 0 when every command matched, 1 otherwise, with a diff per mismatch. --update writes the real
outputs into the page instead (review the diff: the page then shows this run's ages and times).
Usage: e2e/cli-docs.py [--page docs/cli.md] [--settle 30] [--update]   (KUBECONFIG and PATH give kubectl and the plugin)
"""
import argparse
import difflib
import re
import subprocess
import sys
import time

FENCE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
DIRECTIVE = re.compile(r"<!-- cli-docs: (example|setup)\b(.*?)-->", re.S)
READ_ONLY = re.compile(r"^kubectl (syncgc (tree|preview|why|status)|get)\b")
NORMALISE = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"), "<time>"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uid>"),
    (re.compile(r"\b\d+(\.\d+)?/s\b"), "<rate>"),
    (re.compile(r"\b(\d+(\.\d+)?(ms|h|m|s|d))+\b"), "<dur>"),
    (re.compile(r"\b\d+(\.\d+)? s\b"), "<dur>"),
    (re.compile(r"[ \t]+"), " "),
]


def normalise(text):
    lines = []
    for line in text.rstrip("\n").split("\n") if text.strip() else []:
        for pattern, replacement in NORMALISE:
            line = pattern.sub(replacement, line)
        lines.append(line.rstrip())
    return lines


def blocks(page):
    """(kind, setup, commands) per console block; kind is 'example' or 'run'; commands: [(cmd, output)]."""
    text = open(page, encoding="utf-8").read()
    result = []
    last = 0
    for fence in FENCE.finditer(text):
        kind, setup = "run", ""
        between = text[last:fence.start()]
        for d in DIRECTIVE.finditer(between):
            if d.group(1) == "example":
                kind = "example"
            else:
                setup += d.group(2).strip("\n") + "\n"
        last = fence.end()
        commands = []
        for line in fence.group(1).split("\n"):
            if line.startswith("$ "):
                commands.append([line[2:], ""])
            elif commands:
                commands[-1][1] += line + "\n"
        result.append((kind, setup, [(c, o.rstrip("\n")) for c, o in commands], text.count("\n", 0, fence.start()) + 1,
                       fence.span(1)))
    return result


def run(command):
    p = subprocess.run(["bash", "-c", command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", default="docs/cli.md")
    ap.add_argument("--settle", type=float, default=30)
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    failures, ran, skipped = 0, 0, 0
    updates = []
    for kind, setup, commands, line, span in blocks(args.page):
        if kind == "example":
            skipped += 1
            print(f"[cli-docs] {args.page}:{line}: example only, not run ({len(commands)} commands)")
            continue
        if setup:
            p = subprocess.run(["bash", "-ec", setup], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                print(f"[cli-docs] {args.page}:{line}: setup failed ({p.returncode}):\n{p.stdout}")
                return 1
        real_block, prev = "", None
        for command, expected in commands:
            ran += 1
            want = normalise(expected)
            deadline = time.monotonic() + (args.settle if READ_ONLY.match(command) and not args.update else 0)
            if args.update and READ_ONLY.match(command):
                time.sleep(3)  # what the page shows is the state once a cascade in progress has settled
            while True:
                real = run(command)
                got = normalise(real)
                if got == want or time.monotonic() >= deadline:
                    break
                time.sleep(1)
            if real_block and not real_block.endswith("\n$ " + prev + "\n"):
                real_block += "\n"  # a blank line after an output, as on a terminal
            real_block += "$ " + command + "\n" + (real.rstrip("\n") + "\n" if real.strip() else "")
            prev = command
            if got != want:
                failures += 1
                print(f"[cli-docs] {args.page}:{line}: $ {command}: the page's output differs from the real one:")
                sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(want, got, "page", "real", lineterm=""))
            else:
                print(f"[cli-docs] ok: $ {command}")
        updates.append((span, real_block))
    if args.update:
        text = open(args.page, encoding="utf-8").read()
        for (start, end), real_block in reversed(updates):
            text = text[:start] + real_block + text[end:]
        open(args.page, "w", encoding="utf-8").write(text)
        print(f"[cli-docs] {args.page} updated with the real outputs")
        return 0
    print(f"[cli-docs] {ran} commands run, {failures} differ; {skipped} example blocks not run")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
