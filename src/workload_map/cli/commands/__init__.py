"""One module per command; each exposes ``command`` and imports the library only when it runs."""
