"""`ks.print`: values, not reprs, summarized long axes, streams and file URLs."""

from __future__ import annotations

import io
import sys

import pytest

import kerasish as ks


def test_print_writes_values_not_reprs():
    out = io.StringIO()
    ks.print("x:", ks.constant([[1, 2], [3, 4]]), {"lr": ks.constant(0.5)}, [1, ks.constant(2)],
             output_stream=out)
    assert out.getvalue() == "x: [[1 2]\n [3 4]] {'lr': 0.5} [1, 2]\n"


def test_print_summarizes_long_axes_and_defaults_to_stderr(capsys):
    ks.print(ks.range(100))
    assert capsys.readouterr().err == "[ 0  1  2 ... 97 98 99]\n"  # NumPy aligns the columns
    ks.print(ks.range(8), summarize=-1, sep="", end="!", output_stream=sys.stdout)
    assert capsys.readouterr().out == "[0 1 2 3 4 5 6 7]!"


def test_print_to_a_file_url(tmp_path):
    path = tmp_path / "log.txt"
    ks.print("a", output_stream=f"file://{path}")
    ks.print("b", output_stream=f"file://{path}")
    assert path.read_text() == "a\nb\n"
    with pytest.raises(ValueError, match=r"output_stream must be .* got 'stdout'"):
        ks.print("a", output_stream="stdout")
