#!/usr/bin/env python3
"""Plots deletion time against the number of objects, per contender, from the CSV the benchmark writes.

    python3 bench/plot.py [docs/benchmarks.csv] [docs/benchmarks.png] [--loglog]

Median per workload and contender, error bars from min to max; trees joined by lines, wide
workloads (one owner with N direct dependents) as squares.
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

ORDER = ["syncgc", "foreground", "foreground-qps", "floor", "syncgc-unlimited", "floor-unlimited"]
COLORS = {"syncgc": "tab:green", "foreground": "tab:red", "foreground-qps": "tab:orange", "floor": "tab:blue",
          "syncgc-unlimited": "tab:olive", "floor-unlimited": "tab:cyan"}


def read(path):
    meta, lines = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                key, _, value = line[1:].partition(":")
                meta[key.strip()] = value.strip()
            elif line.strip():
                lines.append(line)
    return meta, list(csv.DictReader(lines))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    loglog = "--loglog" in sys.argv[1:]
    src = args[0] if len(args) > 0 else "docs/benchmarks.csv"
    out = args[1] if len(args) > 1 else "docs/benchmarks.png"
    if not os.path.isfile(src):
        print(f"{src} not found: run the benchmark first (make bench)")
        return
    meta, rows = read(src)
    times = defaultdict(list)  # (contender, shape, objects) -> seconds
    for r in rows:
        try:
            s = float(r["seconds"])
        except ValueError:
            continue
        if r.get("outcome", "ok") != "ok":
            continue
        times[(r["contender"], r["shape"], int(r["objects"]))].append(s)
    if not times:
        sys.exit(f"{src}: no successful runs to plot")

    fig, ax = plt.subplots(figsize=(10.5, 5), dpi=120)
    contenders = [c for c in ORDER if any(k[0] == c for k in times)]
    contenders += sorted({k[0] for k in times} - set(contenders))
    for c in contenders:
        label = meta.get("title_" + c, c)
        color = COLORS.get(c)
        for shape, marker, style in (("tree", "o", "-"), ("wide", "s", "none")):
            keys = sorted(k for k in times if k[0] == c and k[1] == shape)
            if not keys:
                continue
            xs = [k[2] for k in keys]
            med = [statistics.median(times[k]) for k in keys]
            lo = [m - min(times[k]) for k, m in zip(keys, med)]
            hi = [max(times[k]) - m for k, m in zip(keys, med)]
            ax.errorbar(xs, med, yerr=[lo, hi], marker=marker, linestyle=style, color=color, capsize=3,
                        label=f"{label} ({shape})")
    xs_all = [k[2] for k in times]
    ys_all = [v for vs in times.values() for v in vs]
    if loglog:
        # A dotted line of slope 1 through the smallest syncgc point: linear growth runs parallel to it.
        lo_x, hi_x = min(xs_all), max(xs_all)
        ref = [k for k in times if k[0] in ("syncgc-unlimited", "syncgc") and k[2] == lo_x]
        if ref:
            y0 = statistics.median(times[ref[0]])
            ax.plot([lo_x, hi_x], [y0, y0 * hi_x / lo_x], linestyle=":", color="gray", label="linear growth")
    if loglog or max(xs_all) / max(1, min(xs_all)) > 5:
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
    if not loglog:  # on log-log axes the decades are the ticks (1,001 and 1,111 would overlap)
        ax.set_xticks(sorted(set(xs_all)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    if loglog or max(ys_all) / max(1e-3, min(ys_all)) > 20:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("objects in the tree (root included)")
    ax.set_ylabel("seconds from the first DELETE until the root is gone")
    title = "syncgc vs. built-in foreground deletion vs. floor"
    if meta.get("date"):
        title += f"\n{meta['date']}, {meta.get('cores', '?')} cores, Kubernetes {meta.get('kubernetes', '?')}, " \
                 f"median of {meta.get('repetitions', '?')} (bars: min–max)"
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    fig.tight_layout()
    fig.savefig(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
