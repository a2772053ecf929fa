"""README's "A taste": every commented line prints (or raises) exactly what its comment says."""

import contextlib
import io
import re
from pathlib import Path

import pytest

import kerasish as ks

README = Path(__file__).resolve().parents[1] / "README.md"


def _taste_lines() -> list:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## A taste\n\n```python\n(.*?)```", text, re.S).group(1)
    return block.splitlines()


def test_the_taste_prints_what_its_comments_say():
    namespace: dict = {}
    pending: list = []  # statements not run yet (a `with` block spans several lines)
    checked = 0
    for line in _taste_lines():
        code, _, comment = line.partition("  # ")
        pending.append(code.rstrip())
        if not comment:
            continue
        source = "\n".join(pending)
        pending = []
        comment = comment.strip()
        if code.startswith("print("):
            output = io.StringIO()
            with contextlib.redirect_stdout(output):
                exec(source, namespace)
            claimed = comment.split(" (")[0]  # a parenthesised remark may follow
            assert output.getvalue().strip() == claimed, line
        else:
            error_type, message = comment.split(": ", 1)
            with pytest.raises(getattr(ks, error_type)) as info:
                exec(source, namespace)
            assert str(info.value) == message, line
        checked += 1
    assert checked == 3
