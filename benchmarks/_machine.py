"""The CPU model every benchmark script reports with its figures."""

from __future__ import annotations

import platform


def cpu_model() -> str:
    """The CPU's model name (as `lscpu` shows it, from /proc/cpuinfo), else what Python knows."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"
