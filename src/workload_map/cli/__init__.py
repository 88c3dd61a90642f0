"""The ``wmap`` command-line interface (also installed as the ``kubectl-wmap`` plugin).

Modules here import only click at load time; everything heavy is imported inside the commands so
that ``wmap --help`` and shell completion stay fast.
"""
