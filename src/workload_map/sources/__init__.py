"""Where objects come from: files, streams and dumps."""
