from __future__ import annotations

import sys
from pathlib import Path

# Tests import shared helpers (corpus.py) as top-level modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))
