"""Example external engines (docs/engine-protocol.md), plain Python scripts run as programs.

``durak-sim engine-example`` prints the path of ``lowest_card.py``, so an installed
durak-sim can seat it: ``durak-sim match "engine:$(durak-sim engine-example)" easy``.
"""
from pathlib import Path

#: the example engines shipped with the package, by name
EXAMPLES = {"lowest_card": Path(__file__).resolve().parent / "lowest_card.py"}
