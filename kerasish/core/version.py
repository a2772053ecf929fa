"""kerasish's version, in the core so that files written anywhere (`.keras` metadata) can
name it without importing the package root."""

__version__ = "0.1.0"
