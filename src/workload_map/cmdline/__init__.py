"""cmdline."""
