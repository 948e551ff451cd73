#!/usr/bin/env python3
"""Plots mpt-run logs: the loss curves of several runs (e.g. FP32, f16, bf16)
and, when a log has one, the loss scale over time with the skipped steps
marked. Also prints the curves as a text table (no matplotlib needed).

  plot-training.py fp32.csv=FP32 f16.csv=f16 bf16.csv=bf16 -o losses.png
  plot-training.py fp32.csv f16.csv --table-every 50      # table only

Logs are mpt-run's CSV (--log-format=csv) or JSON lines (--log-format=jsonl).
A LABEL after '=' names the curve (default: the file name). --smooth K
plots a running mean over K steps as well (per-batch losses are noisy).
"""
import argparse
import csv
import json
import math
import os
import sys


def read_log(path):
    """Rows as dicts with step, loss and, when logged, loss_scale/skipped."""
    with open(path, newline="") as f:
        text = f.read()
    rows = []
    if text.lstrip().startswith("{"):
        for line in text.splitlines():
            if line.strip():
                r = json.loads(line)
                rows.append({
                    "step": int(r["step"]),
                    "loss": math.nan if r["loss"] is None else float(r["loss"]),
                    "loss_scale": r.get("loss_scale"),
                    "skipped": r.get("skipped")})
    else:
        for r in csv.DictReader(text.splitlines()):
            rows.append({
                "step": int(r["step"]),
                "loss": float(r["loss"]),
                "loss_scale": float(r["loss_scale"]) if "loss_scale" in r
                else None,
                "skipped": r["skipped"] == "1" if "skipped" in r else None})
    if not rows:
        sys.exit("%s: no steps logged" % path)
    return rows


def running_mean(values, k):
    out, acc, window = [], 0.0, []
    for v in values:
        window.append(v)
        acc += v
        if len(window) > k:
            acc -= window.pop(0)
        out.append(acc / len(window))
    return out


def print_table(runs, every):
    labels = [label for label, _ in runs]
    width = max(12, *(len(l) + 2 for l in labels))
    print("step".rjust(6) + "".join(l.rjust(width) for l in labels))
    steps = sorted({r["step"] for _, rows in runs for r in rows})
    last = steps[-1]
    for step in steps:
        if step % every and step != last:
            continue
        cells = []
        for _, rows in runs:
            match = [r for r in rows if r["step"] == step]
            cells.append(("%.6g" % match[0]["loss"]) if match else "-")
        print(str(step).rjust(6) + "".join(c.rjust(width) for c in cells))


def plot(runs, out, title, smooth):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot-training.py: matplotlib is not installed "
                 "(apt-get install python3-matplotlib, or pip install "
                 "matplotlib); --table-every prints the curves without it")
    scaled = [(l, rows) for l, rows in runs
              if rows[0]["loss_scale"] is not None]
    nplots = 2 if scaled else 1
    fig, axes = plt.subplots(nplots, 1, figsize=(8, 4 + 2.5 * (nplots - 1)),
                             sharex=True, squeeze=False)
    ax = axes[0][0]
    # Mixed-precision curves often lie on the FP32 one: distinct line
    # styles keep each visible.
    styles = ["-", "--", ":", "-."]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    color_of = {label: colors[i % len(colors)]
                for i, (label, _) in enumerate(runs)}
    all_positive = True
    for i, (label, rows) in enumerate(runs):
        steps = [r["step"] for r in rows]
        losses = [r["loss"] for r in rows]
        all_positive &= all(v > 0 for v in losses if math.isfinite(v))
        style = styles[i % len(styles)]
        if smooth > 1:
            ax.plot(steps, losses, alpha=0.2, linewidth=0.7,
                    color=color_of[label])
            ax.plot(steps, running_mean(losses, smooth), color=color_of[label],
                    linestyle=style, linewidth=1.6,
                    label="%s (mean of %d)" % (label, smooth))
        else:
            ax.plot(steps, losses, label=label, linewidth=1.4, linestyle=style,
                    color=color_of[label])
    ax.set_ylabel("loss")
    if all_positive:
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title(title)
    if scaled:
        ax2 = axes[1][0]
        for label, rows in scaled:
            steps = [r["step"] for r in rows]
            ax2.step(steps, [r["loss_scale"] for r in rows], where="post",
                     label=label, color=color_of[label])
            skipped = [r for r in rows if r["skipped"]]
            if skipped:
                ax2.scatter([r["step"] for r in skipped],
                            [r["loss_scale"] for r in skipped], marker="x",
                            color=color_of[label],
                            label="%s: skipped steps" % label)
        ax2.set_yscale("log", base=2)
        ax2.set_ylabel("loss scale")
        ax2.grid(True, which="both", alpha=0.3)
        ax2.legend()
    axes[-1][0].set_xlabel("step")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote %s" % out)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("logs", nargs="+", metavar="LOG[=LABEL]")
    p.add_argument("-o", "--output", help="PNG to write")
    p.add_argument("--title", default="mpt-run training loss")
    p.add_argument("--smooth", type=int, default=1)
    p.add_argument("--table-every", type=int, default=0,
                   help="print the losses every N steps as a table")
    a = p.parse_args()
    if not a.output and not a.table_every:
        p.error("give -o OUT.png and/or --table-every N")
    runs = []
    for spec in a.logs:
        path, _, label = spec.partition("=")
        runs.append((label or os.path.basename(path), read_log(path)))
    if a.table_every:
        print_table(runs, a.table_every)
    if a.output:
        plot(runs, a.output, a.title, a.smooth)


if __name__ == "__main__":
    main()
