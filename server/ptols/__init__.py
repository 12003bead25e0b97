"""ptols: the PyPTO language server. It asks ptoc; it never reimplements the compiler."""

__version__ = "0.1.0"
