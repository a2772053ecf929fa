"""pytest, for the package's doctests: a module that needs an optional extra is collected only
where the extra is installed (kerasish.core.numba_kernels: numba, `kerasish[fast]`)."""

try:
    import numba  # noqa: F401
except ImportError:
    collect_ignore = ["kerasish/core/numba_kernels.py"]
