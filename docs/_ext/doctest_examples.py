"""A griffe extension for the API reference: kerasish docstrings title their doctests
`Example:`, which Google style reads as a note of prose; this reads such sections as
`Examples:`, so that their `>>>` lines are shown as code."""

import re

import griffe

_EXAMPLE_TITLE = re.compile(r"^(\s*)Example:[ \t]*$", re.MULTILINE)


class DoctestExamples(griffe.Extension):
    """Retitle `Example:` sections `Examples:` before the docstring is parsed."""

    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE_TITLE.sub(r"\1Examples:", obj.docstring.value)
